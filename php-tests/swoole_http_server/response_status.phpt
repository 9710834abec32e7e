--TEST--
swoole_http_server: status($code, $reason) sets the status line, with the standard reason by default
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// A custom reason phrase appears verbatim; without one the standard phrase is used.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    if ($req->server['request_uri'] === '/custom') {
        $resp->status(418, 'I Am A Teapot');
    } else {
        $resp->status(404);
    }
    $resp->end('body');
}), function ($port) {
    foreach (['/custom', '/std'] as $p) {
        $r = rsw_request($port, 'GET', $p);
        echo explode("\r\n", $r['raw'])[0], ' | ', $r['body'], "\n";
    }
});
?>
--EXPECT--
HTTP/1.1 418 I Am A Teapot | body
HTTP/1.1 404 Not Found | body
