--TEST--
swoole_server: start_session_id: the first connection's id is the one after it (past 2^31 too), in BASE and PROCESS mode; send() and getClientInfo() take such ids
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
foreach ([SWOOLE_BASE, SWOOLE_PROCESS] as $mode) {
    rsw_run_server(rsw_tcp_server_fn([
        'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
            $i = $s->getClientInfo($fd);
            $s->send($fd, "$fd " . ($i !== false ? 'info' : 'noinfo') . ' ' . json_encode(array_values(iterator_to_array($s->connections))) . "\n");
        },
    ], ['start_session_id' => (1 << 31) + 5], $mode), function (int $port) {
        foreach ([1, 2] as $_) {
            $c = new RswConn($port);
            $c->send("hi\n");
            rsw_read_until($c, fn($b) => str_ends_with($b, "\n"));
            echo $c->buf;
            $c->close();
        }
    }, 10, ['ready_count' => 1, 'wait_port' => false]);
}
?>
--EXPECT--
2147483654 info [2147483654]
2147483655 info [2147483655]
2147483654 info [2147483654]
2147483655 info [2147483655]
