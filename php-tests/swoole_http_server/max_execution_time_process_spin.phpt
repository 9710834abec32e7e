--TEST--
swoole_http_server: PROCESS mode honours max_execution_time: while one worker spins in while(true), 20 new clients are served by the others; the spinning request gets 504 in about 1 s and its worker is replaced
--DESCRIPTION--
Issue 17 ("an infinite loop in a callback"): max_execution_time=1 is the request deadline when no request_timeout is set.
A client dispatched to the stuck worker before it is interrupted is answered (503) when it is, never dropped.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--INI--
max_execution_time=1
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$t = rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    if ($req->server['request_uri'] === '/spin') {
        while (true) {
        }
    }
    $resp->end('ok');
}, ['worker_num' => 4], SWOOLE_PROCESS), function ($port) {
    $spin = new RswConn($port);
    $t0 = microtime(true);
    $spin->send("GET /spin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    usleep(200000);
    $ok = 0;
    $answered = 0;
    for ($i = 0; $i < 20; $i++) {
        $r = rsw_request($port, 'GET', "/r$i", [], null, RSW_HOST, 3.0);
        if ($r !== null) {
            $answered++;
            $ok += $r['status'] === 200 ? 1 : 0;
        }
    }
    rsw_check('every new client answered', $answered === 20, $answered);
    rsw_check('at least 18 of 20 served 200 while a worker spins', $ok >= 18, $ok);
    $r = $spin->readResponse(false, 5.0);
    $el = microtime(true) - $t0;
    rsw_check('the spinning request: 504', ($r['status'] ?? 0) === 504, $r['status'] ?? null);
    rsw_check('in about 1 s', $el > 0.9 && $el < 2.2, $el);
});
rsw_check('PHP\'s message logged', str_contains($t->log(), 'Maximum execution time of 1 second exceeded'));
?>
--EXPECT--
every new client answered: OK
at least 18 of 20 served 200 while a worker spins: OK
the spinning request: 504: OK
in about 1 s: OK
PHP's message logged: OK
