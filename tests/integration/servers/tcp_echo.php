<?php
// Raw TCP echo server for tests/integration/test_tcp.py: php tcp_echo.php <port> [worker_num] [task_worker_num].
// "task:<x>" is answered through a task worker (taskwait); anything else is echoed.
$port = (int) ($argv[1] ?? 9501);
$server = new Swoole\Server('127.0.0.1', $port);
$server->set([
    'worker_num' => (int) ($argv[2] ?? 2),
    'task_worker_num' => (int) ($argv[3] ?? 0),
    'open_eof_split' => true,
    'package_eof' => "\n",
    'log_level' => 4,
]);
$server->on('receive', function (Swoole\Server $s, int $fd, int $rid, string $data) {
    if (str_starts_with($data, 'task:')) {
        $s->send($fd, 'task:' . $s->taskwait(substr($data, 5), 5));
        return;
    }
    $s->send($fd, $data);
});
$server->on('task', fn($s, $id, $src, $data) => $data);
$server->start();
