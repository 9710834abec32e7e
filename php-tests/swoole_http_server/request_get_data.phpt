--TEST--
swoole_http_server: getData() returns the request (request line, headers and body)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// getData() gives the request line, headers and body as sent. Header names come back lower-case:
// rswoole rebuilds the text from hyper's parsed head (docs/compat.md).
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end($req->getData());
}), function ($port) {
    $raw = "POST /data?q=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test: yes\r\nContent-Length: 11\r\nConnection: close\r\n\r\nhello=world";
    $c = new RswConn($port);
    $c->send($raw);
    $r = $c->readResponse();
    var_dump($r['status'], $r['body'] === $raw, strtolower($r['body']) === strtolower($raw));
    var_dump(str_starts_with($r['body'], "POST /data?q=1 HTTP/1.1\r\n"), str_ends_with($r['body'], "\r\n\r\nhello=world"));
});
?>
--EXPECT--
int(200)
bool(false)
bool(true)
bool(true)
bool(true)
