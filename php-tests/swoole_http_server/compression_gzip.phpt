--TEST--
swoole_http_server: http_compression gzips a large body when the client accepts gzip
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Accept-Encoding: gzip and a 12 KB body: Content-Encoding: gzip, smaller on the wire, gunzips to the original.
require __DIR__ . '/../include/bootstrap.php';
$text = str_repeat("The quick brown fox jumps over the lazy dog. ", 270);
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($text) {
    $resp->end($text);
}, ['http_compression' => true]), function ($port) use ($text) {
    $r = rsw_request($port, 'GET', '/', ['Accept-Encoding' => 'gzip']);
    var_dump($r['status'], rsw_header($r, 'content-encoding'));
    var_dump(strlen($r['body']) < strlen($text));
    var_dump((int) rsw_header($r, 'content-length') === strlen($r['body']) || $r['chunked']);
    var_dump(@gzdecode($r['body']) === $text);
});
?>
--EXPECT--
int(200)
string(4) "gzip"
bool(true)
bool(true)
bool(true)
