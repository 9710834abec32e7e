--TEST--
swoole_http_server: document_root + enable_static_handler serves files with Content-Type, ETag and Last-Modified
--DESCRIPTION--
ETag is an rswoole contract: Swoole 6.2.1 sends Last-Modified but no ETag.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The file is served by the static handler, not by onRequest (which would answer "dynamic").
require __DIR__ . '/../include/bootstrap.php';
$root = rsw_tmpdir();
mkdir("$root/sub");
file_put_contents("$root/sub/page.txt", "static content\n");
$mtime = time() - 7200;
touch("$root/sub/page.txt", $mtime);
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('dynamic');
}, ['document_root' => $root, 'enable_static_handler' => true]), function ($port) use ($mtime) {
    $r = rsw_request($port, 'GET', '/sub/page.txt');
    var_dump($r['status'], $r['body'], rsw_header($r, 'content-type'), rsw_header($r, 'content-length'));
    var_dump(strtotime((string) rsw_header($r, 'last-modified')) === $mtime);
    var_dump(strlen((string) rsw_header($r, 'etag')) > 2);
});
?>
--EXPECT--
int(200)
string(15) "static content
"
string(10) "text/plain"
string(2) "15"
bool(true)
bool(true)
