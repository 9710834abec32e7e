--TEST--
swoole_client_sync: Swoole\Client against a peer process: send/recv, length framing, MSG_WAITALL, recv timeout (EAGAIN) and refused connect warnings
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$srv = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
$name = stream_socket_get_name($srv, false);
$port = (int) substr($name, strrpos($name, ':') + 1);
$pid = pcntl_fork();
if ($pid === 0) {
    $c = stream_socket_accept($srv, 5);
    $d = fread($c, 100);
    fwrite($c, pack('N', 4) . 'body' . pack('N', 2));
    usleep(100000);
    fwrite($c, 'ok' . str_repeat('w', 5000));
    usleep(800000);
    fclose($c);
    exit(0);
}
fclose($srv);
$c = new Swoole\Client(SWOOLE_SOCK_TCP);
var_dump($c->connect('127.0.0.1', $port, 0.5));
var_dump($c->send('hello'));
$c->set(['open_length_check' => true, 'package_length_type' => 'N', 'package_length_offset' => 0, 'package_body_offset' => 4]);
var_dump(substr($c->recv(), 4), substr($c->recv(), 4));
$c->set(['open_length_check' => false]);
$c2 = new Swoole\Client(SWOOLE_SOCK_TCP);
var_dump(strlen($c->recv(5000, Swoole\Client::MSG_WAITALL)));
$t = microtime(true);
var_dump($c->recv(), $c->errCode === SOCKET_EAGAIN, microtime(true) - $t < 1.0);
var_dump($c->close());
var_dump($c2->connect('127.0.0.1', 1, 0.5), $c2->errCode);
pcntl_waitpid($pid, $st);
?>
--EXPECTF--
bool(true)
int(5)
string(4) "body"
string(2) "ok"
int(5000)

Warning: Swoole\Client::recv(): recv() failed, Error: Resource temporarily unavailable[11] in %s on line %d
bool(false)
bool(true)
bool(true)
bool(true)

Warning: Swoole\Client::connect(): connect to server[127.0.0.1:1] failed. Error: Connection refused[111] in %s on line %d
bool(false)
int(111)
