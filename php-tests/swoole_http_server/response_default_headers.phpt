--TEST--
swoole_http_server: responses carry default Server, Date, Content-Type: text/html, Content-Length and Connection headers
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// A handler that sets nothing still produces a complete HTTP/1.1 response.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('hello');
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    $r = $c->readResponse();
    var_dump($r['version'], $r['status']);
    var_dump(rsw_header($r, 'server') !== null && rsw_header($r, 'server') !== '');
    $date = rsw_header($r, 'date');
    var_dump($date !== null && preg_match('/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/', $date) === 1);
    var_dump($date !== null && abs(strtotime($date) - time()) <= 5);
    var_dump(rsw_header($r, 'content-type'), rsw_header($r, 'content-length'), strtolower((string) rsw_header($r, 'connection')));
    $c->close();
    $r = rsw_request($port, 'GET', '/', ['Connection' => 'close']);
    var_dump(strtolower((string) rsw_header($r, 'connection')));
});
?>
--EXPECT--
string(8) "HTTP/1.1"
int(200)
bool(true)
bool(true)
bool(true)
string(9) "text/html"
string(1) "5"
string(10) "keep-alive"
string(5) "close"
