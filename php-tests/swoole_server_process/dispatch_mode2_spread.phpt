--TEST--
swoole_server_process: dispatch_mode 2 spreads sequential connections over every worker (the key is a connection number, not the master's reused fd)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

$t = new ServerTest(function ($port, $ready) {
    $http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_PROCESS);
    $http->set(['worker_num' => 4, 'enable_coroutine' => false, 'log_level' => SWOOLE_LOG_WARNING]);
    $http->on('workerStart', function ($s, $id) use ($ready) { $ready(); });
    $http->on('request', function ($req, $resp) use ($http) { $resp->end((string) $http->worker_id); });
    $http->start();
}, ['ready_count' => 4]);
$t->start();
$count = [];
for ($i = 0; $i < 40; $i++) {
    $c = new RswConn($t->port);
    $c->send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    rsw_read_until($c, fn($b) => preg_match('/\r\n\r\n(\d)$/', $b) === 1, 5);
    $c->close();
    preg_match('/\r\n\r\n(\d)$/', $c->buf, $m);
    $w = $m[1] ?? '?';
    $count[$w] = ($count[$w] ?? 0) + 1;
}
ksort($count);
rsw_check('40 sequential connections reach all 4 workers, 10 each', $count === ['0' => 10, '1' => 10, '2' => 10, '3' => 10], $count);
echo $t->stop(), "\n";
?>
--EXPECT--
40 sequential connections reach all 4 workers, 10 each: OK
exit=0
