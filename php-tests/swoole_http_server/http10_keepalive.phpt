--TEST--
swoole_http_server: HTTP/1.0 with Connection: keep-alive keeps the connection open
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The response says keep-alive, the socket stays open, and a second request is served on it.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('n=' . $req->server['request_uri']);
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    $r = $c->readResponse();
    var_dump($r['status'], strtolower((string) rsw_header($r, 'connection')), $r['body']);
    var_dump($c->closedByPeer(0.5));
    $c->send("GET /2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    $r = $c->readResponse();
    var_dump($r['status'] ?? null, $r['body'] ?? null);
});
?>
--EXPECT--
int(200)
string(10) "keep-alive"
string(4) "n=/1"
bool(false)
int(200)
string(4) "n=/2"
