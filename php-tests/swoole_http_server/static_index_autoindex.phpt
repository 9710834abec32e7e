--TEST--
swoole_http_server: http_index_files answers a directory with its first index file; http_autoindex lists a directory without one; without them a directory goes to onRequest
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$root = rsw_tmpdir();
mkdir("$root/withindex");
mkdir("$root/list");
file_put_contents("$root/withindex/home.html", "HOME\n");
file_put_contents("$root/withindex/index.html", "INDEX\n");
file_put_contents("$root/list/a.txt", "a");
file_put_contents("$root/list/b.txt", "b");
$on = ['document_root' => $root, 'enable_static_handler' => true,
    'http_index_files' => ['index.html', 'home.html'], 'http_autoindex' => true];
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('dynamic');
}, $on), function ($port) {
    $r = rsw_request($port, 'GET', '/withindex/');
    var_dump($r['status'], $r['body']);
    $r = rsw_request($port, 'GET', '/list');
    var_dump($r['status'], rsw_header($r, 'content-type'));
    var_dump(str_contains($r['body'], 'Index of /list/'), str_contains($r['body'], 'a.txt'), str_contains($r['body'], 'b.txt'));
    $r = rsw_request($port, 'GET', '/');
    var_dump(str_contains($r['body'], 'withindex') && str_contains($r['body'], 'list'));
});
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('dynamic');
}, ['document_root' => $root, 'enable_static_handler' => true]), function ($port) {
    var_dump(rsw_request($port, 'GET', '/list')['body']);
});
?>
--EXPECT--
int(200)
string(6) "INDEX
"
int(200)
string(9) "text/html"
bool(true)
bool(true)
bool(true)
bool(true)
string(7) "dynamic"
