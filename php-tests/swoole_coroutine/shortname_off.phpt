--TEST--
swoole_coroutine: with swoole.use_shortname=Off there is no go(), Co class or Co\run (Call to undefined function Co\run())
--INI--
swoole.use_shortname=Off
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
var_dump(function_exists('go'), function_exists('defer'), class_exists('Co', false));
var_dump(function_exists('Swoole\Coroutine\run'));
var_dump(filter_var(ini_get('swoole.use_shortname'), FILTER_VALIDATE_BOOLEAN));
Swoole\Coroutine\run(function () { echo "long name works\n"; });
Co\run(function () { echo "never\n"; });
?>
--EXPECTF--
bool(false)
bool(false)
bool(false)
bool(true)
bool(false)
long name works

Fatal error: Uncaught Error: Call to undefined function Co\run() in %s:%d
Stack trace:
#0 {main}
  thrown in %s on line %d
