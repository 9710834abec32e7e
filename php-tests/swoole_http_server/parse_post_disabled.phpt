--TEST--
swoole_http_server: http_parse_post=false leaves $request->post empty but keeps the raw body
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// A urlencoded body is not parsed; rawContent() still has it.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end(json_encode(['post' => $req->post, 'raw' => $req->rawContent()]));
}, ['http_parse_post' => false]), function ($port) {
    $r = rsw_request($port, 'POST', '/', ['Content-Type' => 'application/x-www-form-urlencoded'], 'a=1&b=2');
    $j = json_decode($r['body'], true);
    var_dump($r['status'], empty($j['post']), $j['raw']);
});
?>
--EXPECT--
int(200)
bool(true)
string(7) "a=1&b=2"
