--TEST--
swoole_http_server: $request->get parses the query string, including a[]= and b[x]= nesting and url-decoding
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Same rules as PHP's parse_str: arrays, nested keys, %XX and '+' decoding.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end(var_export($req->get, true));
}), function ($port) {
    [$status, , $body] = rsw_http_get($port, '/p?a[]=1&a[]=2&b[x]=2&c=hello+world%21&d=%E2%82%AC');
    var_dump($status);
    echo $body, "\n";
    [, , $none] = rsw_http_get($port, '/p');
    echo $none, "\n";
});
?>
--EXPECT--
int(200)
array (
  'a' => 
  array (
    0 => '1',
    1 => '2',
  ),
  'b' => 
  array (
    'x' => '2',
  ),
  'c' => 'hello world!',
  'd' => '€',
)
NULL
