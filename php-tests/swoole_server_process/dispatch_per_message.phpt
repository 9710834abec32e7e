--TEST--
swoole_server_process: dispatch_mode 1 sends each TCP message of one connection to the next worker; the connection outlives max_request restarts; dispatch_func picks the worker or discards
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$count = 0;
$receive = function (Swoole\Server $s, $fd, $rid, $data) use (&$count) {
    $count++;
    $s->send($fd, "w{$s->worker_id} n$count\n");
};
// One request at a time on one connection: its replies name the worker.
$ask = function (RswConn $c, int $n): array {
    $got = [];
    for ($i = 0; $i < $n; $i++) {
        $c->buf = '';
        $c->send("m$i\n");
        rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 5);
        $got[] = trim($c->buf);
    }
    return $got;
};
$t = rsw_run_server(rsw_tcp_server_fn(['receive' => $receive], [
    'worker_num' => 2, 'dispatch_mode' => 1, 'max_request' => 3,
    'open_eof_split' => true, 'package_eof' => "\n",
], SWOOLE_PROCESS), function (int $port) use ($ask) {
    $c = new RswConn($port);
    $got = $ask($c, 10);
    $want = ['w0 n1', 'w1 n1', 'w0 n2', 'w1 n2', 'w0 n3', 'w1 n3', 'w0 n1', 'w1 n1', 'w0 n2', 'w1 n2'];
    rsw_check('messages alternate workers, which restart after max_request', $got === $want, $got);
    rsw_check('the connection stayed open', !$c->closedByPeer(0.1));
}, 15, ['ready_count' => 2]);

$t = rsw_run_server(rsw_tcp_server_fn(['receive' => $receive], [
    'worker_num' => 3,
    'dispatch_func' => function ($s, $fd, $type, $data) {
        return str_starts_with($data, 'drop') ? SWOOLE_DISPATCH_RESULT_DISCARD_PACKET : 2;
    },
    'open_eof_split' => true, 'package_eof' => "\n",
], SWOOLE_PROCESS), function (int $port) use ($ask) {
    $c = new RswConn($port);
    $got = $ask($c, 3);
    rsw_check('dispatch_func chooses the worker of every message', $got === ['w2 n1', 'w2 n2', 'w2 n3'], $got);
    $c->buf = '';
    $c->send("drop me\n");
    rsw_check('dispatch_func discards a message', !rsw_read_until($c, fn($b) => $b !== '', 0.5));
}, 15, ['ready_count' => 3]);
?>
--EXPECT--
messages alternate workers, which restart after max_request: OK
the connection stayed open: OK
dispatch_func chooses the worker of every message: OK
dispatch_func discards a message: OK
