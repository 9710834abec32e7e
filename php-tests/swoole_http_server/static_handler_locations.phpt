--TEST--
swoole_http_server: static_handler_locations limits the static handler to URL prefixes; a missing file under one is a 404, an unknown type under one is served, elsewhere it goes to onRequest
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$root = rsw_tmpdir();
mkdir("$root/pub");
file_put_contents("$root/pub/a.txt", 'pub-a');
file_put_contents("$root/pub/blob.rswunknown", 'pub-blob');
file_put_contents("$root/b.txt", 'root-b');
file_put_contents("$root/blob.rswunknown", 'root-blob');
$cb = function ($req, $resp) {
    $resp->end('dynamic ' . $req->server['request_uri']);
};
rsw_run_server(rsw_http_server_fn($cb, ['document_root' => $root, 'enable_static_handler' => true,
    'static_handler_locations' => ['/pub', 'nope']]), function ($port) {
    foreach (['/pub/a.txt', '/PUB/a.txt', '/pub/blob.rswunknown', '/pub/missing.txt', '/b.txt', '/pub'] as $p) {
        $r = rsw_request($port, 'GET', $p);
        $body = $r['status'] == 404 ? (str_contains($r['body'], '<h1>HTTP 404 Not Found</h1>') ? '404 page' : $r['body']) : $r['body'];
        echo "$p: {$r['status']} $body ", rsw_header($r, 'content-type') ?? '-', "\n";
    }
});
// Without locations: every URL is tried, but only files of a known type are served.
rsw_run_server(rsw_http_server_fn($cb, ['document_root' => $root, 'enable_static_handler' => true]), function ($port) {
    foreach (['/b.txt', '/blob.rswunknown', '/missing.txt'] as $p) {
        $r = rsw_request($port, 'GET', $p);
        echo "$p: {$r['status']} {$r['body']}\n";
    }
});
?>
--EXPECT--
/pub/a.txt: 200 pub-a text/plain
/PUB/a.txt: 404 404 page -
/pub/blob.rswunknown: 200 pub-blob application/octet-stream
/pub/missing.txt: 404 404 page -
/b.txt: 200 dynamic /b.txt text/html
/pub: 200 dynamic /pub text/html
/b.txt: 200 root-b
/blob.rswunknown: 200 dynamic /blob.rswunknown
/missing.txt: 200 dynamic /missing.txt
