--TEST--
swoole_http_server: when the whole server stops (SIGTERM to the master), an idle keep-alive connection is closed at once, not kept for the reload grace
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$t = rsw_run_server(rsw_http_server_fn(function ($req, $resp) { $resp->end('ok'); }, ['worker_num' => 1]),
    function ($port, ServerTest $t) {
        $c = new RswConn($port);
        $c->send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        rsw_read_until($c, fn($b) => str_ends_with($b, 'ok'), 5);
        rsw_check('answered, kept alive', str_starts_with($c->buf, 'HTTP/1.1 200') && !$c->eof);
        posix_kill($t->pid, SIGTERM);
        $t0 = microtime(true);
        while (!$c->eof && microtime(true) - $t0 < 3) {
            $c->fill(0.05);
        }
        $dt = microtime(true) - $t0;
        rsw_check('the idle connection is closed within 0.5 s', $c->eof && $dt < 0.5, round($dt, 2));
        // Its own exit, as sigterm_inflight waits for it: the harness's
        // stop() would otherwise send a second SIGTERM to a server still
        // shutting down on a loaded machine (then "signal=15").
        $t->waitExit(8);
    });
echo $t->status(), "\n";
?>
--EXPECT--
answered, kept alive: OK
the idle connection is closed within 0.5 s: OK
exit=0
