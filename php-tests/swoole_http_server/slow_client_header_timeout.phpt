--TEST--
swoole_http_server: a client that does not finish its request head within http_header_timeout is disconnected
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// http_header_timeout (an rswoole option, default 30 s) set to 1 s: a half-sent head is cut off after
// about a second, not before, and the server keeps serving others.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('ok');
}, ['http_header_timeout' => 1]), function ($port) {
    $c = new RswConn($port);
    $t0 = microtime(true);
    $c->send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Partial: ");
    var_dump($c->closedByPeer(8));
    $elapsed = microtime(true) - $t0;
    var_dump($elapsed > 0.8 && $elapsed < 5);
    echo rsw_http_get($port, '/')[2], "\n";
});
?>
--EXPECT--
bool(true)
bool(true)
ok
