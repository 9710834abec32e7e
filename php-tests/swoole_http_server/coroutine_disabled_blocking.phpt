--TEST--
swoole_http_server: with enable_coroutine false, callbacks run plainly: 50 concurrent usleep(200000) requests take >= 10 s on one worker
--DESCRIPTION--
Seed 001's process-pool model: without coroutines a handler that blocks holds its worker, so one worker serves
the 50 requests one after another (50 x 0.2 s = 10 s), as the coroutine issue's acceptance asks; the
same 50 requests with coroutines finish in < 1 s (coroutine_concurrent_sleep.phpt).
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $cid = Swoole\Coroutine::getCid();
    usleep(200000);
    $resp->end("cid=$cid");
}, ['worker_num' => 1, 'enable_coroutine' => false]), function ($port) {
    $conns = [];
    for ($i = 0; $i < 50; $i++) {
        $conns[] = new RswConn($port);
    }
    $t = microtime(true);
    foreach ($conns as $i => $c) {
        $c->send("GET /r$i HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    }
    $ok = 0;
    $bodies = [];
    foreach ($conns as $c) {
        $r = $c->readResponse(false, 15.0);
        if ($r !== null && $r['status'] === 200) {
            $ok++;
            $bodies[$r['body']] = true;
        }
    }
    $el = microtime(true) - $t;
    var_dump($ok);
    rsw_check('no coroutine in the handler (getCid() = -1)', array_keys($bodies) === ['cid=-1'], array_keys($bodies));
    rsw_check('serialised: took >= 10 s', $el >= 9.9, $el);
    rsw_check('bounded: took < 14 s', $el < 14.0, $el);
});
?>
--EXPECT--
int(50)
no coroutine in the handler (getCid() = -1): OK
serialised: took >= 10 s: OK
bounded: took < 14 s: OK
