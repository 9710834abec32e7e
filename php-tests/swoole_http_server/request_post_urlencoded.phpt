--TEST--
swoole_http_server: $request->post parses an application/x-www-form-urlencoded body
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// A form body with nesting and encoded characters becomes the same array parse_str() would give.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end(var_export($req->post, true));
}), function ($port) {
    $body = 'name=J%C3%B6rg+M&tags[]=a&tags[]=b&opt[k]=v&empty=';
    $r = rsw_request($port, 'POST', '/form', ['Content-Type' => 'application/x-www-form-urlencoded'], $body);
    var_dump($r['status']);
    echo $r['body'], "\n";
});
?>
--EXPECT--
int(200)
array (
  'name' => 'Jörg M',
  'tags' => 
  array (
    0 => 'a',
    1 => 'b',
  ),
  'opt' => 
  array (
    'k' => 'v',
  ),
  'empty' => '',
)
