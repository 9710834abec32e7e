--TEST--
swoole_http_server: $request->cookie parses the Cookie header
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Several cookies, a url-encoded value, and no cookie at all (null).
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end(var_export($req->cookie, true));
}), function ($port) {
    [$s, , $body] = rsw_http_get($port, '/', ['Cookie' => 'session=abc123; user=J%C3%B6rg; theme=dark']);
    var_dump($s);
    echo $body, "\n";
    echo rsw_http_get($port, '/')[2], "\n";
});
?>
--EXPECT--
int(200)
array (
  'session' => 'abc123',
  'user' => 'Jörg',
  'theme' => 'dark',
)
NULL
