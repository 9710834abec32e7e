--TEST--
swoole_server_process: onManagerStart runs once the workers are forked (it may wait for them to start), then can message them with sendMessage()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$events = rsw_tempfile('rsw_ev_');
$started = new Swoole\Atomic(0);
$t = new ServerTest(rsw_tcp_server_fn([
    'workerStart' => function (Swoole\Server $s, int $id) use ($started) {
        $started->add(1);
    },
    'managerStart' => function (Swoole\Server $s) use ($started, $events) {
        $until = microtime(true) + 2;
        while ($started->get() < 2 && microtime(true) < $until) {
            usleep(10000);
        }
        file_put_contents($events, "started {$started->get()}\n", FILE_APPEND | LOCK_EX);
        for ($i = 0; $i < 4; $i++) {
            $s->sendMessage("msg-$i", $i % 2);
        }
    },
    'pipeMessage' => function (Swoole\Server $s, int $src, $data) use ($events) {
        file_put_contents($events, "{$s->worker_id} $data\n", FILE_APPEND | LOCK_EX);
    },
    'receive' => function () {},
], ['worker_num' => 2], SWOOLE_PROCESS), ['ready_count' => 2]);
$t->start();
rsw_wait_until(fn() => count(file($events)) >= 5, 3);
$lines = file($events, FILE_IGNORE_NEW_LINES);
sort($lines);
echo implode("\n", $lines), "\n";
echo $t->stop(), "\n";
?>
--EXPECT--
0 msg-0
0 msg-2
1 msg-1
1 msg-3
started 2
exit=0
