--TEST--
swoole_http_server: $server->close($fd) right after $response->end() still sends that response, then closes; a close without end() sends nothing; a later close() of the idle connection closes it at once
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// As Swoole, which flushes what end() sent before it closes. Both HTTP/1
// paths: a plain request and a chunked one.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    if ($req->server['request_uri'] === '/later') {
        $resp->end('later');
        $fd = $req->fd;
        Swoole\Timer::after(200, fn () => rsw_server()->close($fd));
        return;
    }
    if ($req->server['request_uri'] !== '/silent') {
        $resp->end('body:' . $req->rawContent());
    }
    rsw_server()->close($req->fd);
}), function ($port) {
    $plain = rsw_raw($port, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
    echo substr($plain, 0, 15), '|', substr($plain, strpos($plain, "\r\n\r\n") + 4), "\n";
    $chunked = rsw_raw($port, "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nxyz\r\n0\r\n\r\n");
    echo substr($chunked, 0, 15), '|', substr($chunked, strpos($chunked, "\r\n\r\n") + 4), "\n";
    var_dump(rsw_raw($port, "GET /silent HTTP/1.1\r\nHost: x\r\n\r\n"));
    $c = new RswConn($port);
    $c->send("GET /later HTTP/1.1\r\nHost: x\r\n\r\n");
    echo $c->readResponse()['body'], "\n";
    $t = microtime(true);
    var_dump($c->closedByPeer(3), microtime(true) - $t < 1.5);
});
?>
--EXPECT--
HTTP/1.1 200 OK|body:abc
HTTP/1.1 200 OK|body:xyz
string(0) ""
later
bool(true)
bool(true)
