--TEST--
swoole_server: task() with onFinish and a finish callback, taskwait, taskWaitMulti, taskCo, taskworker flag, 5 MiB payloads, an exception in onTask, send() to a connection from a task worker
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $cmd = trim($data);
        $out = [];
        if ($cmd === 'finish') {
            $s->task(['fd' => $fd, 'op' => 'double', 'n' => 21]);
            return; // onFinish answers
        }
        if ($cmd === 'callback') {
            $s->task('cb', -1, function ($s, $id, $res) use ($fd) { $s->send($fd, "callback:$res\n"); });
            return;
        }
        if ($cmd === 'wait') {
            $out['taskwait'] = $s->taskwait(['op' => 'double', 'n' => 5], 2);
            $out['in_worker'] = $s->taskworker;
            $big = str_repeat('abcdefgh', 5 << 17); // 5 MiB
            $r = $s->taskwait(['op' => 'echo', 'v' => $big], 5);
            $out['big'] = is_string($r) && $r === $big;
            $out['multi'] = $s->taskWaitMulti([['op' => 'double', 'n' => 1], 'k' => ['op' => 'double', 'n' => 2]], 2);
            $out['co'] = $s->taskCo([['op' => 'double', 'n' => 3], ['op' => 'sleep']], 0.3);
            $out['throw'] = $s->taskwait(['op' => 'throw'], 0.5);
            $out['after_throw'] = $s->taskwait(['op' => 'double', 'n' => 50], 2);
            $out['flag'] = $s->taskwait(['op' => 'flag'], 2);
        }
        if ($cmd === 'push') {
            $s->task(['op' => 'push', 'fd' => $fd]);
            return;
        }
        $s->send($fd, json_encode($out) . "\n");
    },
    'task' => function (Swoole\Server $s, $id, $src, $data) {
        if ($data === 'cb') {
            return 'CB';
        }
        switch ($data['op']) {
            case 'double': return ['fd' => $data['fd'] ?? null, 'r' => $data['n'] * 2];
            case 'echo': return $data['v'];
            case 'sleep': usleep(800000); return 'late';
            case 'throw': throw new RuntimeException('task failed on purpose');
            case 'flag': $s->finish(['taskworker' => $s->taskworker, 'id_ok' => $s->worker_id >= 1]); return null;
            case 'push':
                foreach ($s->connections as $c) {
                    $s->send($c, "pushed to $c from task worker\n");
                }
                return null;
        }
    },
    'finish' => function (Swoole\Server $s, $id, $res) {
        if (is_array($res) && isset($res['fd'])) {
            $s->send($res['fd'], "finish:{$res['r']}\n");
        }
    },
], ['worker_num' => 1, 'task_worker_num' => 2]), function (int $port, ServerTest $t) {
    $c = new RswConn($port);
    $c->send("finish\n");
    rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 3);
    echo $c->buf;
    $c->buf = '';
    $c->send("callback\n");
    rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 3);
    echo $c->buf;
    $c->buf = '';
    $c->send("wait\n");
    rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 10);
    $r = json_decode($c->buf, true);
    rsw_check('taskwait', ($r['taskwait']['r'] ?? null) === 10, $r);
    rsw_check('taskworker false in a worker', ($r['in_worker'] ?? null) === false);
    rsw_check('5 MiB payload both ways', ($r['big'] ?? null) === true);
    rsw_check('taskWaitMulti keeps keys', ($r['multi'][0]['r'] ?? null) === 2 && ($r['multi']['k']['r'] ?? null) === 4, $r['multi'] ?? null);
    rsw_check('taskCo: false for the timed-out task', ($r['co'][0]['r'] ?? null) === 6 && ($r['co'][1] ?? null) === false, $r['co'] ?? null);
    rsw_check('throwing task: false', ($r['throw'] ?? null) === false);
    rsw_check('task worker still serves', ($r['after_throw']['r'] ?? null) === 100);
    rsw_check('finish() and taskworker in a task worker', ($r['flag'] ?? null) === ['taskworker' => true, 'id_ok' => true], $r['flag'] ?? null);
    rsw_check('exception logged', str_contains($t->log(), 'task failed on purpose'), $t->log());
    $c->buf = '';
    $d = new RswConn($port);
    $d->send("hello\n");
    rsw_read_until($d, fn($b) => str_ends_with($b, "\n"), 3);
    $c->send("push\n");
    rsw_read_until($c, fn($b) => str_contains($b, 'pushed'), 3);
    rsw_read_until($d, fn($b) => str_contains($b, 'pushed'), 3);
    rsw_check('task worker reached both connections', str_contains($c->buf, 'pushed') && str_contains($d->buf, 'pushed'), [$c->buf, $d->buf]);
});
?>
--EXPECT--
finish:42
callback:CB
taskwait: OK
taskworker false in a worker: OK
5 MiB payload both ways: OK
taskWaitMulti keeps keys: OK
taskCo: false for the timed-out task: OK
throwing task: false: OK
task worker still serves: OK
finish() and taskworker in a task worker: OK
exception logged: OK
task worker reached both connections: OK
