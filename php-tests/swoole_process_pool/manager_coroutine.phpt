--TEST--
swoole_process_pool: Swoole\Process\Manager add()/addBatch() (with and without coroutines); an enable_coroutine pool stops on SIGTERM with workerStop; SWOOLE_IPC_MSGQUEUE
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process\Manager;
use Swoole\Process\Pool;

$log = tempnam(sys_get_temp_dir(), 'rsw_mgr_');
$pm = new Manager();
var_dump($pm->getIPCType() === SWOOLE_IPC_NONE);
$pm->add(function (Pool $pool, int $id) use ($log) {
    file_put_contents($log, "plain $id cid=" . Co::getCid() . "\n", FILE_APPEND);
    while (count(file($log)) < 3) {
        usleep(10000);
    }
    $pool->shutdown();
    sleep(10);
});
$pm->addBatch(2, function (Pool $pool, int $id) use ($log) {
    Co::sleep(0.01);
    file_put_contents($log, "co $id cid=" . Co::getCid() . "\n", FILE_APPEND);
    Co::sleep(10);
}, true);
$pm->start();
$lines = file($log, FILE_IGNORE_NEW_LINES);
sort($lines);
echo implode("\n", $lines), "\n";

// enable_coroutine: workerStart is a coroutine; SIGTERM stops the loop, workerStop fires.
file_put_contents($log, '');
$pool = new Pool(1, SWOOLE_IPC_NONE, 0, true);
$pool->on('workerStart', function (Pool $pool, int $id) use ($log) {
    file_put_contents($log, "co worker cid=" . Co::getCid() . "\n", FILE_APPEND);
    while ($pool->workerRunning) {
        Co::sleep(0.02);
    }
});
$pool->on('workerStop', function (Pool $pool, int $id) use ($log) {
    file_put_contents($log, "co worker stop\n", FILE_APPEND);
});
$master = getmypid();
$killer = pcntl_fork();
if ($killer === 0) {
    usleep(300000);
    posix_kill($master, SIGTERM);
    exit(0);
}
$pool->start();
pcntl_waitpid($killer, $st);
echo file_get_contents($log);

// SWOOLE_IPC_MSGQUEUE: the parent's messages reach onMessage.
$key = 0x52580000 + (getmypid() & 0xffff);
file_put_contents($log, '');
$q = new Swoole\Process(fn() => null, false, 0);
$q->useQueue($key);
foreach (['m1', 'm2', 'm3'] as $m) {
    $q->push($m);
}
$pool = new Pool(1, SWOOLE_IPC_MSGQUEUE, $key);
$pool->on('message', function (Pool $pool, string $msg) use ($log) {
    file_put_contents($log, "msg $msg\n", FILE_APPEND);
    if ($msg === 'm3') {
        $pool->shutdown();
    }
});
$pool->on('workerStop', function (Pool $pool, int $id) use ($log) {
    file_put_contents($log, "msgqueue worker stop\n", FILE_APPEND);
});
$pool->start();
echo file_get_contents($log);
$q->freeQueue();
unlink($log);
?>
--EXPECT--
bool(true)
co 1 cid=1
co 2 cid=1
plain 0 cid=-1
co worker cid=1
co worker stop
msg m1
msg m2
msg m3
msgqueue worker stop
