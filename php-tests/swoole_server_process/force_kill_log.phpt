--TEST--
swoole_server_process: a worker stuck past max_wait_time during a reload is force-killed with Swoole's log lines (ReloadTask::kill_all(), then Worker::report_error() for the SIGKILL)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$t = new ServerTest(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $s->send($fd, "stuck\n");
        while (true) {
            sleep(100);
        }
    },
], ['worker_num' => 1, 'max_wait_time' => 1, 'enable_coroutine' => false], SWOOLE_PROCESS), ['ready_count' => 1]);
$t->start();
$c = new RswConn($t->port);
$c->send("x\n");
rsw_read_until($c, fn($b) => str_contains($b, "stuck\n"), 3);
posix_kill($t->pid, SIGUSR1);
rsw_wait_until(fn() => str_contains($t->log(), 'abnormal exit'), 6);
$log = $t->log();
rsw_check('force kill line', (bool) preg_match('/WARNING\tReloadTask::kill_all\(\): force kill worker process\(pid=\d+, id=0\)/', $log), $log);
rsw_check('abnormal exit line', (bool) preg_match('/WARNING\tWorker::report_error\(\): worker\(pid=\d+, id=0\) abnormal exit, status=0, signal=9/', $log), $log);
rsw_check('no "reload finished" at info level', !str_contains($log, 'reload finished'), $log);
echo $t->stop(), "\n";
?>
--EXPECT--
force kill line: OK
abnormal exit line: OK
no "reload finished" at info level: OK
exit=0
