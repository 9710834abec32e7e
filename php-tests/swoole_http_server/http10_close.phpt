--TEST--
swoole_http_server: HTTP/1.0 without keep-alive gets its response and then the connection is closed
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// No Host, no Connection header: the server must answer and close.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('old ' . $req->server['server_protocol']);
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET / HTTP/1.0\r\n\r\n");
    $r = $c->readResponse();
    var_dump($r['status'], $r['body']);
    var_dump($c->closedByPeer(3));
});
?>
--EXPECT--
int(200)
string(12) "old HTTP/1.0"
bool(true)
