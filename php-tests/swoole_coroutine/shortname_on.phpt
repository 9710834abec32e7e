--TEST--
swoole_coroutine: short names go(), defer(), Co and Co\run exist by default (swoole.use_shortname On)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
var_dump(function_exists('go'), function_exists('defer'), class_exists('Co'), function_exists('Co\run'));
var_dump((new ReflectionClass('Co'))->getName());
Co\run(function () {
    defer(function () { echo "deferred\n"; });
    go(function () { echo "in go, Co::getCid() > 0: ", var_export(Co::getCid() > 0, true), "\n"; });
});
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
string(16) "Swoole\Coroutine"
in go, Co::getCid() > 0: true
deferred
