--TEST--
swoole_http_server: port, host and mode properties are set by the constructor
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Before start(): the constructor arguments are visible as properties.
require __DIR__ . '/../include/bootstrap.php';
$port = rsw_free_port();
$http = new Swoole\Http\Server('127.0.0.1', $port); // no mode: Swoole 6 defaults to SWOOLE_BASE
var_dump($http->port === $port, $http->host, $http->mode === SWOOLE_BASE);
?>
--EXPECT--
bool(true)
string(9) "127.0.0.1"
bool(true)
