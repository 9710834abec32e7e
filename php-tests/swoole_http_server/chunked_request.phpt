--TEST--
swoole_http_server: a chunked request body is reassembled in rawContent()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Chunks sent in separate writes arrive as one body.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end(strlen($req->rawContent()) . ':' . $req->rawContent());
}), function ($port) {
    $c = new RswConn($port);
    $c->send("POST /c HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n");
    $c->send("6\r\nhello \r\n");
    usleep(50000);
    $c->send("8\r\nchunked \r\n");
    usleep(50000);
    $c->send("5\r\nworld\r\n0\r\n\r\n");
    $r = $c->readResponse();
    var_dump($r['status'], $r['body']);
});
?>
--EXPECT--
int(200)
string(22) "19:hello chunked world"
