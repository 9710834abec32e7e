--TEST--
swoole_http_server: HEAD gets the headers (with Content-Length) but no body
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// After the HEAD response no body bytes arrive, and the keep-alive connection serves a normal GET next.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('eleven char');
}), function ($port) {
    $c = new RswConn($port);
    $c->send("HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    $r = $c->readResponse(true);
    var_dump($r['status'], rsw_header($r, 'content-length'));
    var_dump($c->readAll(0.5));
    $c->send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    $r = $c->readResponse();
    var_dump($r['status'], $r['body']);
});
?>
--EXPECT--
int(200)
string(2) "11"
string(0) ""
int(200)
string(11) "eleven char"
