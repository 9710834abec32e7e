--TEST--
swoole_client_sync: swoole_client_select() / swoole_select(): the read array keeps only the clients with data (keys kept), the write array the writable ones; 0 and the timeout waited when nothing is ready; a client's id can be set
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$srv = stream_socket_server('tcp://127.0.0.1:0', $en, $es);
$port = (int) substr(strrchr(stream_socket_get_name($srv, false), ':'), 1);
$clients = [];
$peers = [];
for ($i = 0; $i < 3; $i++) {
    $c = new Swoole\Client(SWOOLE_SOCK_TCP);
    var_dump($c->connect('127.0.0.1', $port, 1));
    $clients["c$i"] = $c;
    $peers[] = stream_socket_accept($srv, 1);
}
$clients['c0']->id = 'first';
echo 'id: ', $clients['c0']->id, "\n";

$read = $clients;
$write = $error = [];
$t = microtime(true);
var_dump(swoole_client_select($read, $write, $error, 0.1));
echo 'waited the timeout: ', var_export(microtime(true) - $t >= 0.09, true), ', read left: ', count($read), "\n";

fwrite($peers[1], 'data for c1');
$read = $clients;
$write = [$clients['c2']];
$error = [];
var_dump(swoole_select($read, $write, $error, 1));
echo 'readable: ', implode(',', array_keys($read)), ' writable: ', count($write), "\n";
echo $read['c1']->recv(), "\n";
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
id: first
int(0)
waited the timeout: true, read left: 0
int(2)
readable: c1 writable: 1
data for c1
