--TEST--
swoole_http_server: a pipelined POST with a body does not swallow the request that follows it
--DESCRIPTION--
Swoole 6.2.1 loses the request pipelined after a POST body; HTTP/1.1 requires it to be answered.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// GET, POST with a 4-byte body, GET in one write: three answers in order, the body goes to the POST only.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    if ($req->server['request_uri'] === '/1') {
        usleep(100000);
    }
    $resp->end('resp' . $req->server['request_uri'] . ' ' . $req->rawContent());
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET /1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        . "POST /2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n\r\nbody"
        . "GET /3 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    for ($i = 0; $i < 3; $i++) {
        $r = $c->readResponse();
        echo $r['status'] ?? 'none', ' ', $r['body'] ?? '', "\n";
    }
});
?>
--EXPECT--
200 resp/1 
200 resp/2 body
200 resp/3 
