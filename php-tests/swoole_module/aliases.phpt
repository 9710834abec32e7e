--TEST--
swoole_module: legacy class names swoole_http_server and swoole_server
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Legacy underscore names (used by seed 002) resolve to the namespaced classes.
var_dump(class_exists('swoole_http_server'));
var_dump(class_exists('swoole_server'));
$s = new swoole_http_server('127.0.0.1', 0);
var_dump($s instanceof Swoole\Http\Server);
var_dump(get_class($s));
var_dump(new ReflectionClass('swoole_server') == new ReflectionClass('Swoole\Server'));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
string(18) "Swoole\Http\Server"
bool(true)
