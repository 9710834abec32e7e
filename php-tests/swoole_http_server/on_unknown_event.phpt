--TEST--
swoole_http_server: on() with an unknown event name returns false with Swoole's warning (Server::on() and Port::on() both name Swoole\Server\Port::on(), once)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$http = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_BASE);
var_dump($http->on('noSuchEvent', function () {}));
$port = $http->listen('127.0.0.1', 0, SWOOLE_SOCK_TCP);
var_dump($port->on('otherEvent', function () {}));
?>
--EXPECTF--
Warning: Swoole\Server\Port::on(): unknown event types[noSuchEvent] in %s on line %d
bool(false)

Warning: Swoole\Server\Port::on(): unknown event types[otherEvent] in %s on line %d
bool(false)
