--TEST--
swoole_server: a SIGPIPE another process sends to the master (PROCESS mode) or the BASE-mode master is logged as a signal with no callback, and the server keeps running
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
foreach ([SWOOLE_PROCESS, SWOOLE_BASE] as $mode) {
    $log = rsw_tempfile('rsw_log_');
    $t = new ServerTest(rsw_tcp_server_fn([
        'receive' => function ($s, $fd, $rid, $data) { $s->send($fd, "echo:$data"); },
    ], ['worker_num' => 1, 'log_file' => $log], $mode), ['ready_count' => 1]);
    $t->start();
    usleep(50000);
    posix_kill($t->pid, SIGPIPE);
    usleep(200000);
    $c = new RswConn($t->port);
    $c->send('x');
    rsw_read_until($c, fn($b) => str_contains($b, 'echo:x'), 3);
    echo $c->buf, "\n";
    $t->stop();
    echo preg_replace('/^\[[^\]]*\]/m', '[...]', trim(file_get_contents($log))), "\n";
}
?>
--EXPECT--
echo:x
[...]	WARNING	swoole_signal_callback() (ERRNO 721): Unable to find callback function for signal Broken pipe: 13
echo:x
[...]	WARNING	swoole_signal_callback() (ERRNO 721): Unable to find callback function for signal Broken pipe: 13
