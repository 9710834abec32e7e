--TEST--
swoole_process_pool: 2 workers with SWOOLE_IPC_UNIXSOCK: sendMessage() between workers, getProcess()->write(), workerStop, shutdown() from a worker; start() returns
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process\Pool;

$log = tempnam(sys_get_temp_dir(), 'rsw_pool_');
$pool = new Pool(2, SWOOLE_IPC_UNIXSOCK);
$pool->on('start', function (Pool $pool) use ($log) {
    file_put_contents($log, "master start " . ($pool->master_pid === getmypid() ? 'ok' : 'bad') . "\n", FILE_APPEND);
});
$pool->on('workerStart', function (Pool $pool, int $id) use ($log) {
    $ok = $pool->workerId === $id && $pool->workerPid === getmypid() && $pool->getProcess()->pid === getmypid();
    file_put_contents($log, "start $id " . ($ok ? 'ok' : 'bad') . "\n", FILE_APPEND);
    if ($id === 0) {
        usleep(100000);
        $pool->sendMessage("hello 1 from 0", 1);
    }
});
$pool->on('message', function (Pool $pool, string $msg) use ($log) {
    file_put_contents($log, "worker {$pool->workerId} got [$msg]\n", FILE_APPEND);
    if ($pool->workerId === 1 && $msg === 'hello 1 from 0') {
        $pool->getProcess(0)->write("reply to 0");
    } elseif ($pool->workerId === 0) {
        $pool->shutdown();
    }
});
$pool->on('workerStop', function (Pool $pool, int $id) use ($log) {
    file_put_contents($log, "stop $id running=" . var_export($pool->workerRunning, true) . "\n", FILE_APPEND);
});
$pool->on('shutdown', function (Pool $pool) use ($log) {
    file_put_contents($log, "master shutdown\n", FILE_APPEND);
});
$t = microtime(true);
var_dump($pool->start());
var_dump(microtime(true) - $t < 5);
$lines = file($log, FILE_IGNORE_NEW_LINES);
echo $lines[0], "\n";
sort($lines);
echo implode("\n", $lines), "\n";
var_dump(@$pool->sendMessage('x', 0));
unlink($log);
?>
--EXPECT--
NULL
bool(true)
master start ok
master shutdown
master start ok
start 0 ok
start 1 ok
stop 0 running=false
stop 1 running=false
worker 0 got [reply to 0]
worker 1 got [hello 1 from 0]
bool(false)
