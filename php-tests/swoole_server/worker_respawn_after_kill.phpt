--TEST--
swoole_server: a worker killed after it was ready is forked again at once (no respawn pause), in BASE and PROCESS mode
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
foreach ([SWOOLE_BASE => 'base', SWOOLE_PROCESS => 'process'] as $mode => $name) {
    $events = rsw_tempfile('rsw_ev_');
    $t = new ServerTest(rsw_tcp_server_fn([
        'workerStart' => function (Swoole\Server $s, int $id) use ($events) {
            file_put_contents($events, getmypid() . ' ' . microtime(true) . "\n", FILE_APPEND | LOCK_EX);
        },
        'receive' => function () {},
    ], ['worker_num' => 1], $mode), ['ready_count' => 1]);
    $t->start();
    $gaps = [];
    for ($i = 0; $i < 3; $i++) {
        usleep(150000);
        $lines = file($events, FILE_IGNORE_NEW_LINES);
        [$pid] = explode(' ', end($lines));
        $at = microtime(true);
        posix_kill((int) $pid, SIGKILL);
        rsw_wait_until(fn() => count(file($events)) > count($lines), 3);
        $now = file($events, FILE_IGNORE_NEW_LINES);
        $last = explode(' ', (string) end($now));
        $gaps[] = (float) ($last[1] ?? 99) - $at;
    }
    // Each replacement ran workerStart well within the 100 ms pause a worker
    // that dies before it is ready gets.
    rsw_check("$name: replaced at once", max($gaps) < 0.09, $gaps);
    echo $t->stop(), "\n";
}
?>
--EXPECT--
base: replaced at once: OK
exit=0
process: replaced at once: OK
exit=0
