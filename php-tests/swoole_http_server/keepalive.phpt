--TEST--
swoole_http_server: HTTP/1.1 keep-alive serves several requests on one connection
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Five requests, one socket: same fd every time, and the socket is still open afterwards.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end($req->fd . ' ' . $req->server['request_uri']);
}), function ($port) {
    $c = new RswConn($port);
    $fds = [];
    for ($i = 1; $i <= 5; $i++) {
        $c->send("GET /r$i HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        $r = $c->readResponse();
        [$fd, $uri] = explode(' ', $r['body'] ?? ' ');
        echo $r['status'] ?? 'none', " $uri\n";
        $fds[$fd] = true;
    }
    var_dump(count($fds));
    var_dump($c->closedByPeer(0.3));
});
?>
--EXPECT--
200 /r1
200 /r2
200 /r3
200 /r4
200 /r5
int(1)
bool(false)
