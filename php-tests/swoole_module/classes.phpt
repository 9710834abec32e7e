--TEST--
swoole_module: core classes exist with the right parents
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The Foundation classes exist; Swoole\Exception extends \Exception, Swoole\Error extends \Error.
foreach (['Swoole\Server', 'Swoole\Http\Server', 'Swoole\Http\Request', 'Swoole\Http\Response', 'Swoole\Exception', 'Swoole\Error'] as $c) {
    echo $c, ': ', var_export(class_exists($c), true), "\n";
}
var_dump(is_subclass_of('Swoole\Exception', 'Exception'));
var_dump(is_subclass_of('Swoole\Error', 'Error'));
var_dump(is_subclass_of('Swoole\Http\Server', 'Swoole\Server'));
var_dump((new Swoole\Exception('m', 7))->getCode());
?>
--EXPECT--
Swoole\Server: true
Swoole\Http\Server: true
Swoole\Http\Request: true
Swoole\Http\Response: true
Swoole\Exception: true
Swoole\Error: true
bool(true)
bool(true)
bool(true)
int(7)
