--TEST--
swoole_server: enable_reuse_port (BASE) gives each worker a SO_REUSEPORT socket of its own, so new connections spread over every worker
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$t = rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) { $s->send($fd, (string) $s->worker_id); },
], ['worker_num' => 4, 'enable_reuse_port' => true]), function (int $port) {
    // The worker's own socket is in /proc/<pid>/net/tcp as a second listener on the port.
    $listeners = 0;
    foreach (file('/proc/net/tcp') as $line) {
        $f = preg_split('/\s+/', trim($line));
        if (($f[3] ?? '') === '0A' && str_ends_with($f[1], sprintf(':%04X', $port))) {
            $listeners++;
        }
    }
    rsw_check('one listening socket per worker besides the shared one', $listeners === 5, $listeners);
    $seen = [];
    for ($i = 0; $i < 64; $i++) {
        $c = new RswConn($port);
        $c->send('x');
        rsw_read_until($c, fn($b) => $b !== '', 3);
        $seen[$c->buf] = ($seen[$c->buf] ?? 0) + 1;
        $c->close();
    }
    ksort($seen);
    rsw_check('every worker got connections', array_keys($seen) === [0, 1, 2, 3], $seen);
}, 10, ['ready_count' => 4]);
?>
--EXPECT--
one listening socket per worker besides the shared one: OK
every worker got connections: OK
