--TEST--
swoole_http_server: redirect($url, 301) answers 301 with a Location header
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Default code is 302; an explicit 301 is honoured.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    if ($req->server['request_uri'] === '/perm') {
        $resp->redirect('http://example.com/new?a=1', 301);
    } else {
        $resp->redirect('/elsewhere');
    }
}), function ($port) {
    foreach (['/perm', '/temp'] as $p) {
        $r = rsw_request($port, 'GET', $p);
        var_dump($r['status'], rsw_header($r, 'location'));
    }
});
?>
--EXPECT--
int(301)
string(26) "http://example.com/new?a=1"
int(302)
string(10) "/elsewhere"
