--TEST--
swoole_http_server: with enable_coroutine false, callbacks run plainly: 10 concurrent usleep(200000) requests take >= 2 s on one worker
--DESCRIPTION--
Seed 001's process-pool model: without coroutines a handler that blocks holds its worker, so one worker serves
the 10 requests one after another (10 x 0.2 s). Bounded at 10 requests to keep the test short.
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
    for ($i = 0; $i < 10; $i++) {
        $conns[] = new RswConn($port);
    }
    $t = microtime(true);
    foreach ($conns as $i => $c) {
        $c->send("GET /r$i HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    }
    $ok = 0;
    $bodies = [];
    foreach ($conns as $c) {
        $r = $c->readResponse(false, 5.0);
        if ($r !== null && $r['status'] === 200) {
            $ok++;
            $bodies[$r['body']] = true;
        }
    }
    $el = microtime(true) - $t;
    var_dump($ok);
    rsw_check('no coroutine in the handler (getCid() = -1)', array_keys($bodies) === ['cid=-1'], array_keys($bodies));
    rsw_check('serialised: took >= 2 s', $el >= 1.95, $el);
    rsw_check('bounded: took < 4 s', $el < 4.0, $el);
});
?>
--EXPECT--
int(10)
no coroutine in the handler (getCid() = -1): OK
serialised: took >= 2 s: OK
bounded: took < 4 s: OK
