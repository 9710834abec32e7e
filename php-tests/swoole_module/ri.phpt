--TEST--
swoole_module: php --ri swoole prints module info that names rswoole
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Runs `php -n -d extension=$RSWOOLE_SO --ri swoole` and checks the output.
require __DIR__ . '/../include/bootstrap.php';
$cmd = implode(' ', array_map('escapeshellarg', array_merge(rsw_php_cmd(), ['--ri', 'swoole']))) . ' 2>&1';
exec($cmd, $lines, $code);
$out = implode("\n", $lines);
var_dump($code);
var_dump(str_starts_with(trim($out), 'swoole'));
var_dump(stripos($out, 'rswoole') !== false);
var_dump(str_contains($out, SWOOLE_VERSION));
?>
--EXPECT--
int(0)
bool(true)
bool(true)
bool(true)
