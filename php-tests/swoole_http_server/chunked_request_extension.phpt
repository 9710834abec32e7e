--TEST--
swoole_http_server: chunk extensions in a chunked request body are ignored, not rejected
--DESCRIPTION--
RFC 9112 7.1.1: a recipient must ignore unrecognized chunk extensions. Swoole 6.2.1 answers 400 here.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// "6;name=value" chunk headers carry the same data as plain ones.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end($req->rawContent());
}), function ($port) {
    $r = rsw_request($port, 'POST', '/', ['Transfer-Encoding' => 'chunked'], "6;name=value\r\nhello \r\n5;x\r\nworld\r\n0\r\n\r\n");
    var_dump($r['status'] ?? null, $r['body'] ?? null);
});
?>
--EXPECT--
int(200)
string(11) "hello world"
