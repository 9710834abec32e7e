--TEST--
swoole_server: worker_max_concurrency: a worker hands at most N requests to PHP at once and queues the rest in arrival order (all answered 200, in rounds of N, coroutine_peek_num = N)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$t = rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    if ($req->server['request_uri'] === '/stats') {
        $resp->end(json_encode(rsw_server()->stats()));
        return;
    }
    $GLOBALS['running'] = ($GLOBALS['running'] ?? 0) + 1;
    $GLOBALS['peak'] = max($GLOBALS['peak'] ?? 0, $GLOBALS['running']);
    Co::sleep(0.25);
    $GLOBALS['running']--;
    $resp->end('peak ' . $GLOBALS['peak']);
}, ['worker_num' => 1, 'worker_max_concurrency' => 2]), function (int $port) {
    $t0 = microtime(true);
    $socks = [];
    for ($i = 0; $i < 6; $i++) {
        $s = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 2);
        fwrite($s, "GET /$i HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        $socks[] = $s;
        usleep(10000);
    }
    $done = [];
    foreach ($socks as $i => $s) {
        $resp = stream_get_contents($s);
        $done[$i] = [substr($resp, 0, 15), microtime(true) - $t0, substr($resp, -6)];
    }
    $elapsed = microtime(true) - $t0;
    rsw_check('all six answered 200', count(array_filter($done, fn($d) => $d[0] === 'HTTP/1.1 200 OK')) === 6, $done);
    rsw_check('never more than 2 handlers at once', count(array_filter($done, fn($d) => $d[2] === 'peak 2')) === 6, $done);
    // Three rounds of 0.25 s: serial rounds, not one round of six.
    rsw_check('three rounds (>= 0.7 s, < 2 s)', $elapsed >= 0.7 && $elapsed < 2.0, $elapsed);
    rsw_check('answered in arrival order', $done[1][1] < $done[2][1] + 0.05 && $done[3][1] < $done[4][1] + 0.05 && $done[1][1] + 0.2 < $done[5][1], $done);
    [$status, , $body] = rsw_http_get($port, '/stats');
    $stats = json_decode($body, true);
    rsw_check('coroutine_peek_num is the limit', ($stats['coroutine_peek_num'] ?? null) === 2, $stats['coroutine_peek_num'] ?? $body);
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
all six answered 200: OK
never more than 2 handlers at once: OK
three rounds (>= 0.7 s, < 2 s): OK
answered in arrival order: OK
coroutine_peek_num is the limit: OK
