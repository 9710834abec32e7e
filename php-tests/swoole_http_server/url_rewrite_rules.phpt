--TEST--
swoole_http_server: url_rewrite_rules rewrites the URL the static handler looks up (a `~regex~` key with $1 groups, or a prefix); PHP still sees the original URL; a rewrite cannot leave document_root
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$base = rsw_tmpdir();
mkdir("$base/root");
mkdir("$base/root/static");
mkdir("$base/root/static/docs");
file_put_contents("$base/root/static/7.html", 'post seven');
file_put_contents("$base/root/static/docs/a.txt", 'doc a');
file_put_contents("$base/secret.txt", 'secret');
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('dynamic ' . $req->server['request_uri']);
}, ['document_root' => "$base/root", 'enable_static_handler' => true,
    'static_handler_locations' => ['/static', '/up'],
    'url_rewrite_rules' => [
        '~^/post/(\d+)$~' => '/static/$1.html',
        '~(~' => '/broken',
        '/d/' => '/static/docs/',
        '/up/' => '/up/../../',
    ]]), function ($port) {
    foreach (['/post/7', '/post/8', '/post/7?x=1', '/d/a.txt', '/d/b.txt', '/x/d/a.txt', '/up/secret.txt'] as $p) {
        $r = rsw_request($port, 'GET', $p);
        echo "$p: {$r['status']} ", $r['status'] == 404 ? '404 page' : $r['body'], "\n";
    }
});
?>
--EXPECT--
/post/7: 200 post seven
/post/8: 404 404 page
/post/7?x=1: 200 dynamic /post/7
/d/a.txt: 200 doc a
/d/b.txt: 404 404 page
/x/d/a.txt: 200 dynamic /x/d/a.txt
/up/secret.txt: 404 404 page
