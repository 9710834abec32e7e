--TEST--
swoole_process_pool: with enable_coroutine, workerExit fires at the end of every loop round once the worker is stopping, until its coroutines end; then workerStop (a Swoole-style graceful stop)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process\Pool;

$log = tempnam(sys_get_temp_dir(), 'rsw_poolexit_');
$pool = new Pool(1, SWOOLE_IPC_NONE, 0, true);
$GLOBALS['running'] = true;
$GLOBALS['exits'] = 0;
$pool->on('workerStart', function (Pool $pool, int $id) use ($log) {
    $n = 0;
    while ($GLOBALS['running']) {
        Co::sleep(0.03);
        file_put_contents($log, "tick\n", FILE_APPEND);
        if (++$n === 2) {
            $pool->shutdown();
        }
    }
    file_put_contents($log, "coroutine done\n", FILE_APPEND);
});
$pool->on('workerExit', function (Pool $pool, int $id) use ($log) {
    file_put_contents($log, "exit\n", FILE_APPEND);
    if (++$GLOBALS['exits'] === 3) {
        $GLOBALS['running'] = false;
    }
});
$pool->on('workerStop', function (Pool $pool, int $id) use ($log) {
    file_put_contents($log, "stop\n", FILE_APPEND);
});
$pool->start();
echo file_get_contents($log);
unlink($log);
?>
--EXPECT--
tick
tick
exit
tick
exit
tick
exit
tick
coroutine done
exit
stop
