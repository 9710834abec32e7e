--TEST--
swoole_server: getWorkerStatus() (busy inside a callback, false for an unknown worker), exist() and getLastError()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        swoole_clear_error();
        $s->send($fd, json_encode([
            'self' => $s->getWorkerStatus(),
            'by_id' => $s->getWorkerStatus($s->worker_id),
            'unknown' => $s->getWorkerStatus(99),
            'exist' => $s->exist($fd),
            'exist_other' => $s->exist(123456),
            'last_error' => $s->getLastError(),
        ]) . "\n");
    },
], ['worker_num' => 1]), function (int $port, ServerTest $t) {
    $c = new RswConn($port);
    $c->send("status\n");
    rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 3);
    var_dump(json_decode($c->buf, true));
});
?>
--EXPECT--
array(6) {
  ["self"]=>
  int(1)
  ["by_id"]=>
  int(1)
  ["unknown"]=>
  bool(false)
  ["exist"]=>
  bool(true)
  ["exist_other"]=>
  bool(false)
  ["last_error"]=>
  int(0)
}
