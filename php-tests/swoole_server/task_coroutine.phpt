--TEST--
swoole_server: task_enable_coroutine gives onTask($server, Swoole\Server\Task) in a coroutine, answered with $task->finish(); taskwait in a receive coroutine suspends only that coroutine
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $cmd = trim($data);
        if ($cmd === 'slow') {
            $r = $s->taskwait('slow', 3);
            $s->send($fd, "slow:$r\n");
        } else {
            $s->send($fd, "fast\n");
        }
    },
    'task' => function (Swoole\Server $s, Swoole\Server\Task $task) {
        $cid = Swoole\Coroutine::getCid();
        Swoole\Coroutine::sleep(0.3);
        $task->finish(get_class($task) . "/{$task->id}/{$task->worker_id}/" . ($cid > 0 ? 'co' : 'noco') . "/{$task->data}");
    },
], ['worker_num' => 1, 'task_worker_num' => 1, 'task_enable_coroutine' => true]), function (int $port) {
    $a = new RswConn($port);
    $b = new RswConn($port);
    $t0 = microtime(true);
    $a->send("slow\n");
    usleep(50000);
    $b->send("fast\n");
    rsw_read_until($b, fn($x) => str_ends_with($x, "\n"), 3);
    $fastAt = microtime(true) - $t0;
    rsw_read_until($a, fn($x) => str_ends_with($x, "\n"), 3);
    echo $a->buf;
    rsw_check('other connection answered while the task ran', $b->buf === "fast\n" && $fastAt < 0.25, [$b->buf, round($fastAt, 3)]);
});
?>
--EXPECT--
slow:Swoole\Server\Task/0/0/co/slow
other connection answered while the task ran: OK
