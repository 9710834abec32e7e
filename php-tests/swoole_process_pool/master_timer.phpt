--TEST--
swoole_process_pool: timers set in the master's onStart run in the master while the pool runs (Timer::tick counts, Timer::after calls shutdown()), and the workers do not inherit them
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process\Pool;
use Swoole\Timer;

$log = tempnam(sys_get_temp_dir(), 'rsw_pooltimer_');
$pool = new Pool(2, SWOOLE_IPC_NONE);
$pool->on('start', function (Pool $pool) use ($log) {
    $ticks = 0;
    Timer::tick(50, function () use (&$ticks, $log) {
        $ticks++;
        file_put_contents($log, 'tick ' . getmypid() . "\n", FILE_APPEND);
    });
    Timer::after(400, function () use ($pool, &$ticks, $log) {
        file_put_contents($log, "after ticks>=4:" . var_export($ticks >= 4, true) . "\n", FILE_APPEND);
        $pool->shutdown();
    });
});
$pool->on('workerStart', function (Pool $pool, int $id) {
    while (true) {
        usleep(10000);
    }
});
$t = microtime(true);
$pool->start();
$elapsed = microtime(true) - $t;
Timer::clearAll();
$lines = file($log, FILE_IGNORE_NEW_LINES);
$pids = array_unique(array_map(fn($l) => explode(' ', $l)[1] ?? '', array_filter($lines, fn($l) => str_starts_with($l, 'tick'))));
echo implode("\n", preg_grep('/^after/', $lines)), "\n";
echo 'ticks only in the master: ', var_export($pids === [getmypid() . ''] || array_values($pids) === [(string) getmypid()], true), "\n";
echo 'stopped in time: ', var_export($elapsed > 0.35 && $elapsed < 5, true), "\n";
unlink($log);
?>
--EXPECT--
after ticks>=4:true
ticks only in the master: true
stopped in time: true
