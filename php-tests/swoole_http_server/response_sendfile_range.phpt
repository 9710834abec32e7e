--TEST--
swoole_http_server: sendfile($path, $offset, $length) sends exactly that slice
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// offset+length, and offset alone (to the end of the file).
require __DIR__ . '/../include/bootstrap.php';
$dir = rsw_tmpdir();
file_put_contents("$dir/f.txt", '0123456789abcdefghij');
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($dir) {
    if ($req->server['request_uri'] === '/slice') {
        $resp->sendfile("$dir/f.txt", 5, 7);
    } else {
        $resp->sendfile("$dir/f.txt", 15);
    }
}), function ($port) {
    foreach (['/slice', '/tail'] as $p) {
        $r = rsw_request($port, 'GET', $p);
        var_dump($r['status'], rsw_header($r, 'content-length'), $r['body']);
    }
});
?>
--EXPECT--
int(200)
string(1) "7"
string(7) "56789ab"
int(200)
string(1) "5"
string(5) "fghij"
