--TEST--
swoole_http_server: a path with no file under document_root falls through to onRequest
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Missing file -> the request callback answers; an existing file still comes from disk.
require __DIR__ . '/../include/bootstrap.php';
$root = rsw_tmpdir();
file_put_contents("$root/exists.txt", 'on disk');
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('dynamic ' . $req->server['request_uri']);
}, ['document_root' => $root, 'enable_static_handler' => true]), function ($port) {
    foreach (['/missing.txt', '/exists.txt', '/dir/missing'] as $p) {
        [$s, , $b] = rsw_http_get($port, $p);
        echo "$p: $s $b\n";
    }
});
?>
--EXPECT--
/missing.txt: 200 dynamic /missing.txt
/exists.txt: 200 on disk
/dir/missing: 200 dynamic /dir/missing
