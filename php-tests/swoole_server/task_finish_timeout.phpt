--TEST--
swoole_server: finish() to a worker that reads nothing waits socket_send_timeout once its inbox (socket_buffer_size) is full, then returns false with Swoole's warning in the log
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$script = <<<'PHP'
<?php
$s = new Swoole\Server('127.0.0.1', (int) $argv[1], SWOOLE_PROCESS);
$s->set([
    'worker_num' => 1, 'task_worker_num' => 1, 'log_file' => $argv[2],
    'socket_send_timeout' => 0.5, 'socket_buffer_size' => 128 * 1024,
]);
$s->on('workerStart', function ($s, $id) {
    if ($id === 0) {
        $s->task('go');
        usleep(1500000); // reads nothing meanwhile
        Swoole\Timer::after(500, fn() => $s->shutdown());
    }
});
$s->on('task', function ($s, $tid, $src, $data) {
    $t = microtime(true);
    $n = 0;
    while ($n < 300 && $s->finish(str_repeat('A', 8000))) {
        $n++;
    }
    $waited = microtime(true) - $t;
    echo json_encode([
        'gave_up' => $n < 300,
        'waited' => $waited > 0.4 && $waited < 1.4,
        'error' => swoole_last_error(),
    ]), "\n";
});
$s->on('finish', function () {});
$s->on('receive', function () {});
$s->start();
PHP;
$file = rsw_tempfile('rsw_finish_timeout_');
$log = rsw_tempfile('rsw_finish_timeout_log_');
file_put_contents($file, $script);
$cmd = array_merge(rsw_php_cmd(), ['-d', 'display_errors=stdout', $file, (string) rsw_free_port(), $log]);
$p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
$out = stream_get_contents($pipes[1]);
$err = stream_get_contents($pipes[2]);
proc_close($p);
echo $out, $err;
foreach (explode("\n", file_get_contents($log)) as $line) {
    if (str_contains($line, 'timed out')) {
        echo $line, "\n";
    }
}
@unlink($file);
@unlink($log);
?>
--EXPECTF--
{"gave_up":true,"waited":true,"error":9014}
[%s]	WARNING	Server::finish() (ERRNO 9014): send result to worker timed out
