--TEST--
swoole_server_process: dispatch_mode 1 with max_request 1: every message retires its worker and the connection is handed back twenty times, never closed
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Each message retires the worker that runs it; the worker holding the
// connection hands it back to the master, which gives it to another worker,
// at times to one already draining (it still reads what the master sent
// before it saw the worker stop taking connections). Such a worker used to
// shut the connection down unserved (2 runs in 15 on a loaded machine).
require __DIR__ . '/../include/tcp.php';
$receive = function (Swoole\Server $s, $fd, $rid, $data) {
    $s->send($fd, "w{$s->worker_id} " . trim($data) . "\n");
};
rsw_run_server(rsw_tcp_server_fn(['receive' => $receive], [
    'worker_num' => 2, 'dispatch_mode' => 1, 'max_request' => 1,
    'open_eof_split' => true, 'package_eof' => "\n",
], SWOOLE_PROCESS), function (int $port) {
    $c = new RswConn($port);
    $got = [];
    for ($i = 0; $i < 20; $i++) {
        $c->buf = '';
        $c->send("m$i\n");
        rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 5);
        $got[] = trim($c->buf);
    }
    $want = [];
    for ($i = 0; $i < 20; $i++) {
        $want[] = 'w' . ($i % 2) . " m$i";
    }
    rsw_check('all 20 messages answered, alternating workers', $got === $want, $got);
    rsw_check('the connection stayed open', !$c->closedByPeer(0.1));
}, 30, ['ready_count' => 2]);
?>
--EXPECT--
all 20 messages answered, alternating workers: OK
the connection stayed open: OK
