--TEST--
swoole_coroutine: SWOOLE_USE_SHORTNAME is a bool constant mirroring the ini swoole.use_shortname (On by default)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
var_dump(defined('SWOOLE_USE_SHORTNAME'));
var_dump(SWOOLE_USE_SHORTNAME);
var_dump(filter_var(ini_get('swoole.use_shortname'), FILTER_VALIDATE_BOOLEAN));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
