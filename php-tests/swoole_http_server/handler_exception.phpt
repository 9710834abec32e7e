--TEST--
swoole_http_server: an uncaught exception in the handler gives 500, is logged with file, line and stack trace, and the worker survives
--DESCRIPTION--
rswoole contract: Swoole 6.2.1 treats it as a fatal error, closes the connection without a response and restarts the worker.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// worker_num=1: the pid before and after the exception must be the same process.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    if ($req->server['request_uri'] === '/throw') {
        throw new Exception('boom-at-line-' . __LINE__);
    }
    $resp->end((string) rsw_server()->worker_pid);
}), function ($port, ServerTest $t) {
    [$s1, , $pid1] = rsw_http_get($port, '/');
    $r = rsw_request($port, 'GET', '/throw');
    echo 'throw: ', $r['status'] ?? 'no response', "\n";
    [$s2, , $pid2] = rsw_http_get($port, '/');
    echo "before: $s1, after: $s2\n";
    rsw_check('same worker pid', $pid1 === $pid2 && $pid1 !== '', [$pid1, $pid2]);
    rsw_wait_until(fn() => str_contains($t->log(), 'Stack trace'), 2);
    $log = $t->log();
    $ok = preg_match('~Uncaught Exception: boom-at-line-(\d+) in (\S+):(\d+)~', $log, $m);
    rsw_check('log has "Uncaught Exception: <msg> in <file>:<line>"', $ok === 1 && $m[1] === $m[3] && str_ends_with($m[2], 'handler_exception.php'), $log);
    rsw_check('log has a stack trace', str_contains($log, 'Stack trace'), $log);
});
?>
--EXPECT--
throw: 500
before: 200, after: 200
same worker pid: OK
log has "Uncaught Exception: <msg> in <file>:<line>": OK
log has a stack trace: OK
