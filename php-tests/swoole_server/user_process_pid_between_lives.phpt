--TEST--
swoole_server: getWorkerPid() of a user process that keeps exiting (one that fails, forked again after a pause) answers its last pid between its exit and its next fork (never false), as Swoole's worker keeps it
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $s->send($fd, var_export($s->getWorkerPid(1), true) . "\n");
    },
], ['worker_num' => 1, 'log_file' => '/dev/null'], SWOOLE_PROCESS, SWOOLE_SOCK_TCP, function (Swoole\Server $s) {
    // Lives 20 ms, then fails (exit 3): forked again after a pause.
    $s->addProcess(new Swoole\Process(function () { usleep(20000); exit(3); }, false));
}), function (int $port) {
    usleep(100000);
    $c = new RswConn($port);
    $pids = [];
    for ($i = 0; $i < 150; $i++) {
        $c->buf = '';
        $c->send("pid\n");
        rsw_read_until($c, fn($x) => str_ends_with($x, "\n"), 3);
        $pids[] = trim($c->buf);
        usleep(10000);
    }
    $bad = array_filter($pids, fn($p) => !preg_match('/^[1-9][0-9]*$/', $p));
    rsw_check('a pid every time', $bad === [], array_count_values($bad));
    rsw_check('several lives seen', count(array_unique($pids)) >= 2, count(array_unique($pids)));
});
?>
--EXPECT--
a pid every time: OK
several lives seen: OK
