--TEST--
swoole_http_server: pipelined requests written at once are answered in order
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Three GET requests in one write (the first handler is the slowest); responses must come back in request order.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    if ($req->server['request_uri'] === '/1') {
        usleep(100000);
    }
    $resp->end('resp' . $req->server['request_uri'] . ' ' . $req->rawContent());
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET /1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        . "GET /2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        . "GET /3 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    for ($i = 0; $i < 3; $i++) {
        $r = $c->readResponse();
        echo $r['status'] ?? 'none', ' ', $r['body'] ?? '', "\n";
    }
});
?>
--EXPECT--
200 resp/1 
200 resp/2 
200 resp/3 
