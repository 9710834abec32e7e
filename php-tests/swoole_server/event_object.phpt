--TEST--
swoole_server: event_object gives connect/receive/close a Swoole\Server\Event, onTask a Task (Server::finish() answers it), onFinish a TaskResult and onPipeMessage a PipeMessage (SWOOLE_PROCESS)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
rsw_run_server(rsw_tcp_server_fn([
    'connect' => function (Swoole\Server $s, $ev) {
        $s->send($ev->fd, get_class($ev) . " connect fd=" . $ev->fd . "\n");
    },
    'receive' => function (Swoole\Server $s, $ev) {
        $cmd = trim($ev->data);
        if ($cmd === 'task') {
            $s->task(['fd' => $ev->fd]);
            return;
        }
        if ($cmd === 'pipe') {
            $s->sendMessage(['fd' => $ev->fd], 1 - $s->worker_id);
            return;
        }
        $s->send($ev->fd, sprintf("%s data=%s reactor=%s time=%s\n", get_class($ev), $cmd,
            is_int($ev->reactor_id) ? 'int' : 'no', $ev->dispatch_time > 1e9 ? 'ok' : 'bad'));
    },
    'task' => function (Swoole\Server $s, $task) {
        // Server::finish() answers the task too (no coroutine here).
        $s->finish(['fd' => $task->data['fd'], 'class' => get_class($task)]);
    },
    'finish' => function (Swoole\Server $s, $res) {
        $s->send($res->data['fd'], get_class($res) . " task_id=" . $res->task_id . " from " . $res->data['class'] . "\n");
    },
    'pipeMessage' => function (Swoole\Server $s, $msg) {
        $s->send($msg->data['fd'], get_class($msg) . " from the other worker: " . var_export($msg->source_worker_id === 1 - $s->worker_id, true) . "\n");
    },
], ['worker_num' => 2, 'task_worker_num' => 1, 'event_object' => true], SWOOLE_PROCESS), function (int $port) {
    $c = new RswConn($port);
    rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 3);
    $c->send("hello\n");
    rsw_read_until($c, fn($b) => substr_count($b, "\n") >= 2, 3);
    $c->send("task\n");
    rsw_read_until($c, fn($b) => substr_count($b, "\n") >= 3, 3);
    $c->send("pipe\n");
    rsw_read_until($c, fn($b) => substr_count($b, "\n") >= 4, 3);
    echo $c->buf;
});
?>
--EXPECTF--
Swoole\Server\Event connect fd=%d
Swoole\Server\Event data=hello reactor=int time=ok
Swoole\Server\TaskResult task_id=0 from Swoole\Server\Task
Swoole\Server\PipeMessage from the other worker: true
