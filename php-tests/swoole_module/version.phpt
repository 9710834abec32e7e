--TEST--
swoole_module: SWOOLE_VERSION is a 6.x string and SWOOLE_VERSION_ID the matching integer
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// SWOOLE_VERSION "6.x.y" and SWOOLE_VERSION_ID = major*10000 + minor*100 + patch.
var_dump(is_string(SWOOLE_VERSION));
var_dump(str_starts_with(SWOOLE_VERSION, '6.'));
var_dump(is_int(SWOOLE_VERSION_ID));
preg_match('/^(\d+)\.(\d+)\.(\d+)/', SWOOLE_VERSION, $m);
var_dump(count($m) === 4 && SWOOLE_VERSION_ID === $m[1] * 10000 + $m[2] * 100 + $m[3]);
var_dump(phpversion('swoole') === SWOOLE_VERSION);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
