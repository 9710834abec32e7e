--TEST--
swoole_server_process: dispatch_mode 9 sends each TCP message to the worker with the fewest coroutines, the lowest id on a tie
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$receive = function (Swoole\Server $s, $fd, $rid, $data) {
    $s->send($fd, "w{$s->worker_id}\n");
    if (str_starts_with($data, 'hold')) {
        // This message's coroutine stays alive a while.
        Swoole\Coroutine::sleep(3);
    }
};
$t = rsw_run_server(rsw_tcp_server_fn(['receive' => $receive], [
    'worker_num' => 2, 'dispatch_mode' => 9,
    'open_eof_split' => true, 'package_eof' => "\n",
], SWOOLE_PROCESS), function (int $port) {
    $c = new RswConn($port);
    $got = [];
    foreach (['a', 'b', 'hold', 'c', 'd', 'hold', 'e'] as $m) {
        $c->buf = '';
        $c->send("$m\n");
        rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 5);
        $got[] = "$m:" . trim($c->buf);
        usleep(50000);
    }
    $want = ['a:w0', 'b:w0', 'hold:w0', 'c:w1', 'd:w1', 'hold:w1', 'e:w0'];
    rsw_check('each message goes to the worker with the fewest coroutines', $got === $want, $got);
}, 15, ['ready_count' => 2]);
?>
--EXPECT--
each message goes to the worker with the fewest coroutines: OK
