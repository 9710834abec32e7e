--TEST--
swoole_server: Server\Task shows its properties in Swoole's order (data, dispatch_time, id, worker_id, flags)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$file = rsw_tempfile();
$s = new Swoole\Server('127.0.0.1', 0, SWOOLE_BASE);
$s->set(['worker_num' => 1, 'task_worker_num' => 1, 'task_use_object' => true, 'log_level' => SWOOLE_LOG_WARNING]);
$s->on('receive', function () {});
$s->on('workerStart', function ($s, $id) { if ($id == 0) { $s->task('x'); } });
$s->on('task', function ($s, Swoole\Server\Task $t) use ($file) {
    file_put_contents($file, implode(',', array_keys(get_object_vars($t))) . "\n" . print_r($t, true));
    $s->shutdown();
});
$s->start();
echo file_get_contents($file);
?>
--EXPECTF--
data,dispatch_time,id,worker_id,flags
Swoole\Server\Task Object
(
    [data] => x
    [dispatch_time] => %f
    [id] => 0
    [worker_id] => 0
    [flags] => %d
)
