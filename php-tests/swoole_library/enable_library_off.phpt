--TEST--
swoole_library: swoole.enable_library=Off leaves Swoole's PHP library out (the native classes stay)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--INI--
swoole.enable_library=Off
--FILE--
<?php
var_dump(class_exists('Swoole\ConnectionPool'), class_exists('Swoole\StringObject'), function_exists('swoole_string'),
    class_exists('Swoole\Coroutine\FastCGI\Proxy'), class_exists('Swoole\Coroutine\Channel'), ini_get('swoole.enable_library'));
?>
--EXPECT--
bool(false)
bool(false)
bool(false)
bool(false)
bool(true)
string(0) ""
