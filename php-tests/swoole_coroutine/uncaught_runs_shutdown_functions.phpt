--TEST--
swoole_coroutine: after an uncaught exception (or an uncaught exit()) in a coroutine, registered shutdown functions still run and the script exits with 255
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach (['throw new Exception("boom");', 'Co::sleep(0.01); exit(3);'] as $body) {
    $script = rsw_tempfile('rsw_sd_') . '.php';
    file_put_contents($script, '<?php
register_shutdown_function(function () { echo "shutdown 1\n"; });
register_shutdown_function(function () { echo "shutdown 2\n"; });
Co\run(function () { echo "start\n"; ' . $body . ' });
echo "not reached\n";
');
    $cmd = implode(' ', array_map('escapeshellarg', rsw_php_cmd())) . ' -d display_errors=1 ' . escapeshellarg($script) . ' 2>&1';
    exec($cmd, $out, $rc);
    $text = implode("\n", $out);
    $fatal = array_values(preg_grep('/Uncaught/', $out))[0] ?? '';
    echo preg_replace(['/^PHP /', '/ in \S+:\d+.*$/s'], '', $fatal), "\n";
    var_dump(str_contains($text, 'not reached'), str_ends_with($text, "shutdown 1\nshutdown 2"), $rc);
    $out = [];
    @unlink($script);
}
?>
--EXPECT--
Fatal error: Uncaught Exception: boom
bool(false)
bool(true)
int(255)
Fatal error: Uncaught Swoole\ExitException: swoole exit
bool(false)
bool(true)
int(255)
