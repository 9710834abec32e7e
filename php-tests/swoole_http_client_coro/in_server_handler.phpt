--TEST--
swoole_http_client_coro: a client used inside an Http\Server request handler suspends only that request: one worker serves others meanwhile
--DESCRIPTION--
worker_num 1. /proxy fetches /slow (0.5 s) from the same server with a coroutine client. 5 concurrent /proxy requests finish
in well under 5 x 0.5 s, and a /fast request sent while they wait is answered at once.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    switch ($req->server['request_uri']) {
        case '/slow':
            Co::sleep(0.5);
            $resp->end('slow ' . getmypid());
            return;
        case '/proxy':
            $c = new Swoole\Coroutine\Http\Client('127.0.0.1', rsw_server()->port);
            $ok = $c->get('/slow');
            $resp->end($ok ? "proxied {$c->statusCode} {$c->body}" : "failed {$c->errCode}");
            return;
        default:
            $resp->end('fast');
    }
}, ['worker_num' => 1]), function (int $port) {
    $conns = [];
    for ($i = 0; $i < 5; $i++) {
        $conns[] = new RswConn($port);
    }
    $t = microtime(true);
    foreach ($conns as $c) {
        $c->send("GET /proxy HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    }
    usleep(50000);
    [$status, , $body] = rsw_http_get($port, '/fast');
    $fast = microtime(true) - $t;
    $bodies = [];
    foreach ($conns as $c) {
        $r = $c->readResponse(false, 5.0);
        $bodies[] = $r === null ? 'none' : preg_replace('/\d+$/', 'PID', $r['body']);
    }
    $el = microtime(true) - $t;
    var_dump($status, $body);
    rsw_check('fast answered while the proxies wait', $fast < 0.45, $fast);
    var_dump(array_unique($bodies));
    rsw_check('proxies concurrent: < 1.5 s for 5 x 0.5 s', $el >= 0.49 && $el < 1.5, $el);
});
?>
--EXPECT--
int(200)
string(4) "fast"
fast answered while the proxies wait: OK
array(1) {
  [0]=>
  string(20) "proxied 200 slow PID"
}
proxies concurrent: < 1.5 s for 5 x 0.5 s: OK
