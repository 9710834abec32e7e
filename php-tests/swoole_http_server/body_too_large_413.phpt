--TEST--
swoole_http_server: a Content-Length over package_max_length gets 413 and the handler is not called
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// package_max_length=1024 and Content-Length: 100 KB; the server keeps serving afterwards.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    static $calls = 0;
    $calls++;
    $resp->end("calls=$calls");
}, ['package_max_length' => 1024]), function ($port) {
    $n = 100 * 1024;
    $c = new RswConn($port);
    $c->send("POST /big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: $n\r\n\r\n");
    // The body is not sent: the server must decide from Content-Length (unread data would turn its close into a reset).
    $r = $c->readResponse(false, 5);
    var_dump($r['status'] ?? null);
    var_dump($c->closedByPeer(3));
    echo rsw_http_get($port, '/')[2], "\n";
});
?>
--EXPECT--
int(413)
bool(true)
calls=1
