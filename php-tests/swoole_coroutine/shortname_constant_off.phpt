--TEST--
swoole_coroutine: with swoole.use_shortname=Off the SWOOLE_USE_SHORTNAME constant is false
--INI--
swoole.use_shortname=Off
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
var_dump(defined('SWOOLE_USE_SHORTNAME') ? SWOOLE_USE_SHORTNAME : 'undefined');
?>
--EXPECT--
bool(false)
