--TEST--
swoole_http_server: with default settings, a partial header that never completes is dropped within 70 s
--DESCRIPTION--
rswoole contract (header read timeout); slow: skipped when SKIP_SLOW_TESTS is set (tests/run.sh sets it unless RSW_SLOW=1).
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
if (getenv('SKIP_SLOW_TESTS')) die('skip slow test (up to 70 s)');
?>
--FILE--
<?php
// No timeout settings at all; the server must still close a connection stuck in its header.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('ok');
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Partial: ");
    var_dump($c->closedByPeer(72));
    echo rsw_http_get($port, '/')[2], "\n";
}, 10, ['hard_limit' => 100]);
?>
--EXPECT--
bool(true)
ok
