--TEST--
swoole_http_server: a 100 KB header block is refused with 431 or 400 and the connection is closed
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The server must not buffer unbounded headers; it answers an error status and closes, then keeps serving.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    static $calls = 0;
    $calls++;
    $resp->end("calls=$calls");
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " . str_repeat('a', 100 * 1024) . "\r\n\r\n");
    $r = $c->readResponse(false, 5);
    var_dump(in_array($r['status'] ?? 0, [400, 431], true));
    var_dump($c->closedByPeer(3));
    echo rsw_http_get($port, '/')[2], "\n";
});
?>
--EXPECT--
bool(true)
bool(true)
calls=1
