--TEST--
swoole_server: send() on a raw TCP connection writes at once (the bytes leave although the callback then blocks); last_dispatch_time/last_recv_time have sub-second precision
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$t = rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $info = $s->getClientInfo($fd);
        $s->send($fd, json_encode(['now' => microtime(true), 'dispatch' => $info['last_dispatch_time']]) . "\n");
        if (trim($data) === 'a') {
            usleep(400000);
        }
    },
], ['open_eof_split' => true, 'package_eof' => "\n", 'enable_coroutine' => false]), function (int $port) {
    $c = new RswConn($port);
    $t0 = microtime(true);
    $c->send("a\nb\n");
    rsw_read_until($c, fn($b) => substr_count($b, "\n") >= 1, 3);
    $first = microtime(true) - $t0;
    rsw_check('the first reply arrives before the callback returns', $first < 0.3, $first);
    rsw_read_until($c, fn($b) => substr_count($b, "\n") >= 2, 3);
    [$a, $b] = array_map(fn($l) => json_decode($l, true), explode("\n", trim($c->buf)));
    rsw_check('last_dispatch_time is when the data came', is_float($a['dispatch']) && $a['now'] - $a['dispatch'] < 0.1, $a);
    rsw_check('the second message was read with the first', $b['now'] - $b['dispatch'] >= 0.35, $b);
});
?>
--EXPECT--
the first reply arrives before the callback returns: OK
last_dispatch_time is when the data came: OK
the second message was read with the first: OK
