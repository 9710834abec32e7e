--TEST--
swoole_http_server: http_parse_cookie=false leaves $request->cookie empty but keeps the Cookie header
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The Cookie header is still visible in $request->header.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end(json_encode(['cookie' => $req->cookie, 'header' => $req->header['cookie'] ?? null]));
}, ['http_parse_cookie' => false]), function ($port) {
    [$s, , $body] = rsw_http_get($port, '/', ['Cookie' => 'a=1; b=2']);
    $j = json_decode($body, true);
    var_dump($s, empty($j['cookie']), $j['header']);
});
?>
--EXPECT--
int(200)
bool(true)
string(8) "a=1; b=2"
