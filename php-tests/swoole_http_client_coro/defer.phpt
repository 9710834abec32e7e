--TEST--
swoole_http_client_coro: setDefer(): get() only sends, recv() reads the response; two deferred clients wait concurrently
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    Co::sleep(0.5);
    $resp->end('done ' . $req->server['request_uri']);
}, ['worker_num' => 1]), function (int $port) {
    Co\run(function () use ($port) {
        $a = new Co\Http\Client('127.0.0.1', $port);
        $b = new Co\Http\Client('127.0.0.1', $port);
        var_dump($a->getDefer(), $a->setDefer(), $a->getDefer());
        $b->set(['defer' => true]);
        $t = microtime(true);
        var_dump($a->get('/a'), $b->get('/b'), $a->statusCode, $a->body);
        var_dump($a->recv(), $b->recv(), $a->statusCode, $a->body, $b->body);
        $el = microtime(true) - $t;
        rsw_check('both in ~0.5 s, not 1 s', $el >= 0.49 && $el < 0.9, $el);
        // A second recv() has no response to read.
        var_dump($a->recv());
    });
});
?>
--EXPECT--
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
string(0) ""
bool(true)
bool(true)
int(200)
string(7) "done /a"
string(7) "done /b"
both in ~0.5 s, not 1 s: OK
bool(false)
