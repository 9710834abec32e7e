--TEST--
swoole_http_server: sendfile($path) sends the whole file with its Content-Length
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// A 200 KB binary file arrives byte for byte.
require __DIR__ . '/../include/bootstrap.php';
$dir = rsw_tmpdir();
$data = random_bytes(200 * 1024);
file_put_contents("$dir/blob.bin", $data);
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($dir) {
    $resp->sendfile("$dir/blob.bin");
}), function ($port) use ($data) {
    $r = rsw_request($port, 'GET', '/');
    var_dump($r['status'], rsw_header($r, 'content-length') === (string) strlen($data), $r['body'] === $data);
});
?>
--EXPECT--
int(200)
bool(true)
bool(true)
