--TEST--
swoole_client_sync: a bind_address/bind_port that cannot be bound makes connect() fail with that errno (EADDRINUSE), quietly, as Swoole; a free one is the connection's local address
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$busy = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
$port = (int) explode(':', stream_socket_get_name($busy, false))[1];

$c = new Swoole\Client(SWOOLE_SOCK_TCP);
$c->set(['bind_address' => '127.0.0.1', 'bind_port' => $port]);
var_dump($c->connect('127.0.0.1', $port, 1), $c->errCode === SOCKET_EADDRINUSE);

$free = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
$fport = (int) explode(':', stream_socket_get_name($free, false))[1];
fclose($free);
$d = new Swoole\Client(SWOOLE_SOCK_TCP);
$d->set(['bind_address' => '127.0.0.1', 'bind_port' => $fport]);
var_dump($d->connect('127.0.0.1', $port, 1), $d->getsockname()['port'] === $fport);
$d->close();
?>
--EXPECT--
bool(false)
bool(true)
bool(true)
bool(true)
