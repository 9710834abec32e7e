--TEST--
swoole_process_pool: a worker that exits (or dies) is forked again with the same id; detach() gets a replacement while the old process keeps running; shutdown() from onStart-less master via a worker
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process\Pool;

$log = tempnam(sys_get_temp_dir(), 'rsw_pool_');
$pool = new Pool(1);
$pool->on('workerStart', function (Pool $pool, int $id) use ($log) {
    file_put_contents($log, getmypid() . "\n", FILE_APPEND);
    $n = count(file($log));
    if ($n === 1) {
        return; // exits normally: restarted
    }
    if ($n === 2) {
        posix_kill(getmypid(), SIGKILL); // dies: restarted
    }
    $pool->shutdown();
    sleep(10); // SIGTERM ends it (no message loop, no coroutines)
    echo "not reached\n";
});
$t = microtime(true);
$pool->start();
$pids = file($log, FILE_IGNORE_NEW_LINES);
echo count($pids), " starts, ", count(array_unique($pids)), " pids\n";
var_dump(microtime(true) - $t < 5);

// detach(): the pool forks a replacement; the detached process goes on by itself.
file_put_contents($log, '');
$pool = new Pool(1, SWOOLE_IPC_UNIXSOCK);
$pool->on('workerStart', function (Pool $pool, int $id) use ($log) {
    file_put_contents($log, "start " . getmypid() . "\n", FILE_APPEND);
    if (count(file($log)) === 1) {
        $pool->sendMessage('detach yourself', 0);
    } else {
        usleep(300000);
        $pool->shutdown();
    }
});
$pool->on('message', function (Pool $pool, string $msg) use ($log) {
    var_dump($pool->detach());
    usleep(600000); // still running after the pool replaced us
    file_put_contents($log, "detached " . getmypid() . " done\n", FILE_APPEND);
});
$pool->start();
usleep(800000);
$lines = file($log, FILE_IGNORE_NEW_LINES);
echo preg_replace('/\d+/', 'N', implode("\n", $lines)), "\n";
unlink($log);
?>
--EXPECTF--
%sWARNING	worker#0(pid=%d) abnormal exit, status=0, signal=9
3 starts, 3 pids
bool(true)
bool(true)
start N
start N
detached N done
