--TEST--
swoole_http_server: $request->header holds the request headers with lowercased names
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Mixed-case header names arrive lowercased; values are kept as sent.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $h = $req->header;
    ksort($h);
    $resp->end(json_encode($h));
}), function ($port) {
    [$status, , $body] = rsw_http_get($port, '/', ['X-Custom-Header' => 'Hello World', 'ACCEPT' => 'text/plain', 'x-Empty' => '']);
    var_dump($status);
    $h = json_decode($body, true);
    var_dump($h['x-custom-header'], $h['accept'], $h['host'], $h['x-empty'] ?? null, $h['connection']);
    var_dump(isset($h['X-Custom-Header']) || isset($h['ACCEPT']));
});
?>
--EXPECTF--
int(200)
string(11) "Hello World"
string(10) "text/plain"
string(%d) "127.0.0.1:%d"
string(0) ""
string(5) "close"
bool(false)
