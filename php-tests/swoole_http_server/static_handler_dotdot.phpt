--TEST--
swoole_http_server: the static handler resolves `..` in a path and serves the file only if it stays inside document_root (a sibling with the same prefix is outside)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$base = rsw_tmpdir();
mkdir("$base/site");
mkdir("$base/site/sub");
mkdir("$base/site2");
file_put_contents("$base/site/in.txt", 'inside');
file_put_contents("$base/site2/out.txt", 'sibling');
file_put_contents("$base/secret.txt", 'secret');
$paths = ['/../site/in.txt', '/sub/../in.txt', '/sub/%2e%2e/in.txt', '/../secret.txt', '/%2e%2e/secret.txt',
    '/..%2fsecret.txt', '/sub/../../secret.txt', '/../site2/out.txt', '/../../../../../../etc/hostname'];
$cb = function ($req, $resp) {
    $resp->end('dynamic');
};
// document_root written with `..` in it is resolved first, as Swoole does.
foreach ([[], ['static_handler_locations' => ['/']]] as $extra) {
    rsw_run_server(rsw_http_server_fn($cb, ['document_root' => "$base/site/sub/..", 'enable_static_handler' => true] + $extra),
        function ($port) use ($paths) {
            foreach ($paths as $p) {
                $r = rsw_request($port, 'GET', $p);
                echo "$p: {$r['status']} ", $r['status'] == 404 ? '404 page' : $r['body'], "\n";
            }
        });
}
?>
--EXPECT--
/../site/in.txt: 200 inside
/sub/../in.txt: 200 inside
/sub/%2e%2e/in.txt: 200 inside
/../secret.txt: 200 dynamic
/%2e%2e/secret.txt: 200 dynamic
/..%2fsecret.txt: 200 dynamic
/sub/../../secret.txt: 200 dynamic
/../site2/out.txt: 200 dynamic
/../../../../../../etc/hostname: 200 dynamic
/../site/in.txt: 200 inside
/sub/../in.txt: 200 inside
/sub/%2e%2e/in.txt: 200 inside
/../secret.txt: 404 404 page
/%2e%2e/secret.txt: 404 404 page
/..%2fsecret.txt: 404 404 page
/sub/../../secret.txt: 404 404 page
/../site2/out.txt: 404 404 page
/../../../../../../etc/hostname: 404 404 page
