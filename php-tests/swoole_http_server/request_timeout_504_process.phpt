--TEST--
swoole_http_server: PROCESS mode, request_timeout => 1 answers 504 in about 1 s for a handler in Co::sleep(3), in blocking sleep(3) and spinning in PHP; the worker is replaced and serves again (PROCESS mode, 2 workers)
--DESCRIPTION--
rswoole's own setting (issue 18). A waiting coroutine is woken; a handler running PHP code (or a blocking
call) is interrupted through EG(vm_interrupt) and fails with "Maximum execution time", and the worker recycles.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach ([true, false] as $co) {
    $t = rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
        $p = $req->server['request_uri'];
        if ($p === '/co') {
            Swoole\Coroutine::sleep(3);
        } elseif ($p === '/block') {
            sleep(3);
        } elseif ($p === '/spin') {
            while (true) {
            }
        }
        $resp->end("ok $p");
    }, ['worker_num' => 2, 'request_timeout' => 1, 'enable_coroutine' => $co], SWOOLE_PROCESS), function ($port) use ($co) {
        foreach ($co ? ['/co', '/block', '/spin'] : ['/block', '/spin'] as $path) {
            $t0 = microtime(true);
            $r = rsw_request($port, 'GET', $path, [], null, RSW_HOST, 6.0);
            $el = microtime(true) - $t0;
            $tag = ($co ? 'coroutine' : 'plain') . " $path";
            rsw_check("$tag: 504", ($r['status'] ?? 0) === 504, $r['status'] ?? null);
            rsw_check("$tag: in about 1 s", $el > 0.9 && $el < 2.5, $el);
            $ok = rsw_wait_until(function () use ($port) {
                return (rsw_request($port, 'GET', '/x', [], null, RSW_HOST, 2.0)['body'] ?? '') === 'ok /x';
            }, 5.0);
            rsw_check("$tag: served again afterwards", $ok);
        }
    });
    $log = $t->log();
    rsw_check(($co ? 'coroutine' : 'plain') . ': timeout logged', str_contains($log, 'exceeded request_timeout'));
}
?>
--EXPECT--
coroutine /co: 504: OK
coroutine /co: in about 1 s: OK
coroutine /co: served again afterwards: OK
coroutine /block: 504: OK
coroutine /block: in about 1 s: OK
coroutine /block: served again afterwards: OK
coroutine /spin: 504: OK
coroutine /spin: in about 1 s: OK
coroutine /spin: served again afterwards: OK
coroutine: timeout logged: OK
plain /block: 504: OK
plain /block: in about 1 s: OK
plain /block: served again afterwards: OK
plain /spin: 504: OK
plain /spin: in about 1 s: OK
plain /spin: served again afterwards: OK
plain: timeout logged: OK
