--TEST--
swoole_runtime: hook_flags in one worker: sleep(1) in 50 concurrent requests finishes in < 2 s (usleep, time_nanosleep, time_sleep_until too); without hooks 2 requests take 2 s
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/hooks.inc';
$handler = <<<'PHP'
function ($req, $resp) {
    $r = sleep(1);
    usleep(10000);
    $n = time_nanosleep(0, 10000000);
    $u = time_sleep_until(microtime(true) + 0.01);
    $resp->end(json_encode([$r, $n, $u]));
}
PHP;
foreach ([SWOOLE_HOOK_SLEEP => 50, 0 => 2] as $flags => $n) {
    $srv = rsw_hook_server($handler, $flags, []);
    [$t, $bodies] = rsw_concurrent_get($srv->port, '/', $n);
    echo "flags=$flags n=$n: ", rsw_summary($bodies), "\n";
    if ($flags) {
        rsw_check('hooked: concurrent, < 2 s', $t < 2.0, sprintf('%.2f s', $t));
    } else {
        rsw_check('unhooked: serial, >= 2 s', $t >= 2.0, sprintf('%.2f s', $t));
    }
    $srv->stop();
    if (trim($srv->log()) !== '') echo $srv->log();
}
?>
--EXPECT--
flags=512 n=50: 50 x [0,true,true]
hooked: concurrent, < 2 s: OK
flags=0 n=2: 2 x [0,true,true]
unhooked: serial, >= 2 s: OK
