--TEST--
swoole_server: task_ipc_mode 3 with message_queue_key: task workers take Server\Task::pack() packets from the System V queue (a large one through its file too); a packet that is no task packet is logged as bad and skipped
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc';
if (!function_exists('msg_get_queue')) die('skip ext-sysvmsg required'); ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$key = 0x72000000 + getmypid() % 0xffff;
$log = rsw_tempfile();
$seen = new Swoole\Atomic(0);
$s = new Swoole\Server('127.0.0.1', 0, SWOOLE_BASE);
$s->set(['worker_num' => 1, 'task_worker_num' => 1, 'task_ipc_mode' => 3, 'message_queue_key' => $key,
    'log_file' => $log]);
$s->on('receive', function () {});
$s->on('workerStart', function ($s, $id) use ($key) {
    if ($id != 0) {
        return;
    }
    $q = msg_get_queue($key);
    msg_send($q, 1, 'not a task packet');
    msg_send($q, 1, Swoole\Server\Task::pack(['n' => 1]), false);
    msg_send($q, 1, Swoole\Server\Task::pack(str_repeat('B', 32 * 1024)), false);
});
$s->on('task', function ($s, $id, $src, $data) use ($seen) {
    echo is_array($data) ? json_encode($data) : strlen($data), "\n";
    if ($seen->add(1) == 2) {
        $s->shutdown();
    }
});
$s->start();
msg_remove_queue(msg_get_queue($key));
echo str_contains(file_get_contents($log), 'bad task packet') ? "bad packet logged\n" : file_get_contents($log);
?>
--EXPECT--
{"n":1}
32768
bad packet logged
