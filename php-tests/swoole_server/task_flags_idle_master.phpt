--TEST--
swoole_server: $task->flags as Swoole sets them (task, callback, coroutine taskwait, master), finish() of a task the master sent is false, stats() task_idle_worker_num/task_worker_num, send() to an fd given as a numeric string
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$master = new Swoole\Atomic(0);
rsw_run_server(rsw_tcp_server_fn([
    'start' => function (Swoole\Server $s) {
        $s->task('from master');
    },
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $cmd = trim($data);
        if ($cmd === 'flags') {
            $out = ['plain' => $s->taskwait(['op' => 'flags'], 2)];
            $s->task(['op' => 'flags'], -1, function ($s, $id, $r) use ($fd, $out) {
                $out['callback'] = $r;
                $s->send($fd, json_encode($out) . "\n");
            });
        } elseif ($cmd === 'stats') {
            $s->task(['op' => 'sleep']);
            usleep(100000);
            $s->task(['op' => 'stats', 'fd' => $fd]);
        }
    },
    'task' => function (Swoole\Server $s, Swoole\Server\Task $t) use ($master) {
        if ($t->data === 'from master') {
            $master->set($s->finish('x') === false ? $t->flags : -1);
            return;
        }
        switch ($t->data['op']) {
            case 'flags': return $t->flags;
            case 'sleep': usleep(600000); return null;
            case 'stats':
                // The worker's receive callback returns right after task():
                // give its idle status time to be published.
                usleep(100000);
                $st = $s->stats();
                $s->send((string) $t->data['fd'], json_encode([
                    'task_worker_num' => $st['task_worker_num'],
                    'task_idle_worker_num' => $st['task_idle_worker_num'],
                    'idle_worker_num' => $st['idle_worker_num'],
                    'master_task' => $master->get(),
                ]) . "\n");
        }
        return null;
    },
    'finish' => function () {},
], ['worker_num' => 1, 'task_worker_num' => 3, 'task_use_object' => true, 'log_file' => '/dev/null'], SWOOLE_PROCESS), function (int $port) {
    usleep(200000);
    $c = new RswConn($port);
    $c->send("flags\n");
    rsw_read_until($c, fn($x) => str_ends_with($x, "\n"), 3);
    echo $c->buf;
    $c->buf = '';
    $c->send("stats\n");
    rsw_read_until($c, fn($x) => str_ends_with($x, "\n"), 3);
    echo $c->buf;
});
?>
--EXPECT--
{"plain":38,"callback":14}
{"task_worker_num":3,"task_idle_worker_num":1,"idle_worker_num":1,"master_task":132}
