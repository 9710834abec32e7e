--TEST--
swoole_http_server: a request target with raw bytes above 0x7F (not percent-encoded) is answered 400 without calling the handler
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// RFC 9112 3.2: the target is ASCII; Swoole's parser refuses the rest too.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('handler:' . $req->server['request_uri']);
}), function ($port) {
    foreach (["/test\xE2\x84\xA2", "/q?x=\xC3\xA9"] as $target) {
        $r = rsw_raw($port, "GET $target HTTP/1.1\r\nHost: x\r\n\r\n");
        echo substr($r, 0, 24), "\n";
    }
    echo rsw_http_get($port, '/test%E2%84%A2')[2], "\n";
});
?>
--EXPECT--
HTTP/1.1 400 Bad Request
HTTP/1.1 400 Bad Request
handler:/test%E2%84%A2
