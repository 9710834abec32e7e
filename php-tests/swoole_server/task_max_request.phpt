--TEST--
swoole_server: task_max_request replaces a task worker after that many tasks (task_max_request_grace 0)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $pids = [];
        for ($i = 0; $i < 8; $i++) {
            $pids[] = $s->taskwait($i, 5);
            usleep(100000);
        }
        $s->send($fd, json_encode($pids) . "\n");
    },
    'task' => fn (Swoole\Server $s, $id, $src, $data) => getmypid(),
], ['worker_num' => 1, 'task_worker_num' => 1, 'task_max_request' => 3, 'task_max_request_grace' => 0]),
function (int $port, ServerTest $t) {
    $c = new RswConn($port);
    $c->send("go\n");
    rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 8);
    $pids = json_decode($c->buf, true) ?: [];
    rsw_check('every task answered', count($pids) === 8 && !in_array(false, $pids, true), $pids);
    rsw_check('the first three tasks ran in one task worker', count(array_unique(array_slice($pids, 0, 3))) === 1, $pids);
    rsw_check('then the task worker was replaced', count(array_unique($pids)) >= 2 && $pids[7] !== $pids[0], $pids);
    rsw_check('the replacement is logged', str_contains($t->log(), 'task_max_request reached (3 tasks)'), $t->log());
});
?>
--EXPECT--
every task answered: OK
the first three tasks ran in one task worker: OK
then the task worker was replaced: OK
the replacement is logged: OK
