--TEST--
swoole_module: the extension loads under the name "swoole"
--DESCRIPTION--
Deliberately has no SKIPIF: if the module does not load, this test must fail, not skip.
--FILE--
<?php
// Proves the .so given with -d extension= registers a module named "swoole".
var_dump(extension_loaded('swoole'));
var_dump(in_array('swoole', array_map('strtolower', get_loaded_extensions()), true));
var_dump((new ReflectionExtension('swoole'))->getName());
?>
--EXPECT--
bool(true)
bool(true)
string(6) "swoole"
