--TEST--
swoole_http_server: no compression without Accept-Encoding, or for a body below http_compression_min_length
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Large body without the request header, and a 5-byte body with it: both sent as-is.
require __DIR__ . '/../include/bootstrap.php';
$text = str_repeat('compressible text ', 500);
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($text) {
    $resp->end(isset($req->get['tiny']) ? 'tiny!' : $text);
}, ['http_compression' => true, 'http_compression_min_length' => 128]), function ($port) use ($text) {
    $r = rsw_request($port, 'GET', '/');
    var_dump(rsw_header($r, 'content-encoding'), $r['body'] === $text);
    $r = rsw_request($port, 'GET', '/?tiny=1', ['Accept-Encoding' => 'gzip']);
    var_dump(rsw_header($r, 'content-encoding'), $r['body']);
});
?>
--EXPECT--
NULL
bool(true)
NULL
string(5) "tiny!"
