--TEST--
swoole_timer: a timer created before Server::start() fires in the master only; forked workers and the manager do not inherit it
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$file = rsw_tempfile('rsw_timer_');
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $s->send($fd, "ok\n");
    },
], ['worker_num' => 2], SWOOLE_PROCESS, SWOOLE_SOCK_TCP, function (Swoole\Server $s) use ($file) {
    Swoole\Timer::tick(20, function () use ($file) {
        file_put_contents($file, getmypid() . "\n", FILE_APPEND);
    });
}), function (int $port) use ($file) {
    usleep(300000);
    $pids = array_count_values(array_filter(explode("\n", (string) file_get_contents($file))));
    rsw_check('one process fires the timer', count($pids) === 1, $pids);
});
@unlink($file);
?>
--EXPECT--
one process fires the timer: OK
