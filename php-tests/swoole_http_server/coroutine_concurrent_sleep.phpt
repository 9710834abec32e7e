--TEST--
swoole_http_server: with enable_coroutine (default) 50 concurrent requests each Co::sleep(0.2) on one worker finish in < 1 s
--DESCRIPTION--
Each request runs in its own coroutine, so a handler that sleeps lets the single worker serve the others.
The client opens all 50 connections first, sends the 50 requests, then reads every answer.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $cid = Swoole\Coroutine::getCid();
    Swoole\Coroutine::sleep(0.2);
    $resp->end("cid=$cid pid=" . getmypid());
}, ['worker_num' => 1]), function ($port) {
    $conns = [];
    for ($i = 0; $i < 50; $i++) {
        $conns[] = new RswConn($port);
    }
    $t = microtime(true);
    foreach ($conns as $i => $c) {
        $c->send("GET /r$i HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    }
    $ok = 0;
    $cids = [];
    $pids = [];
    foreach ($conns as $c) {
        $r = $c->readResponse(false, 5.0);
        if ($r !== null && $r['status'] === 200 && preg_match('~^cid=(-?\d+) pid=(\d+)$~', $r['body'], $m)) {
            $ok++;
            $cids[$m[1]] = true;
            $pids[$m[2]] = true;
        }
    }
    $el = microtime(true) - $t;
    var_dump($ok);
    rsw_check('one worker served them all', count($pids) === 1, array_keys($pids));
    rsw_check('each request in its own coroutine', count($cids) === 50 && min(array_keys($cids)) > 0, count($cids));
    rsw_check('at least one sleep long', $el >= 0.19, $el);
    rsw_check('concurrent: all done in < 1 s', $el < 1.0, $el);
});
?>
--EXPECT--
int(50)
one worker served them all: OK
each request in its own coroutine: OK
at least one sleep long: OK
concurrent: all done in < 1 s: OK
