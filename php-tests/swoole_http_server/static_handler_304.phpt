--TEST--
swoole_http_server: the static handler answers If-Modified-Since with 304 when the file is not newer
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Same date as Last-Modified -> 304 with no body; a date before the mtime -> 200 with the body.
require __DIR__ . '/../include/bootstrap.php';
$root = rsw_tmpdir();
file_put_contents("$root/a.txt", 'AAA');
$mtime = time() - 7200;
touch("$root/a.txt", $mtime);
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('dynamic');
}, ['document_root' => $root, 'enable_static_handler' => true]), function ($port) use ($mtime) {
    $r = rsw_request($port, 'GET', '/a.txt', ['If-Modified-Since' => gmdate('D, d M Y H:i:s', $mtime) . ' GMT']);
    var_dump($r['status'], $r['body']);
    $r = rsw_request($port, 'GET', '/a.txt', ['If-Modified-Since' => gmdate('D, d M Y H:i:s', $mtime - 86400) . ' GMT']);
    var_dump($r['status'], $r['body']);
});
?>
--EXPECT--
int(304)
string(0) ""
int(200)
string(3) "AAA"
