--TEST--
swoole_http_server: rawContent(), getContent() and getMethod() return the body and method as sent
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// A JSON body is not parsed into post; rawContent()/getContent() give it back byte for byte.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end(json_encode([
        'raw' => $req->rawContent(), 'content' => $req->getContent(), 'method' => $req->getMethod(), 'post' => $req->post,
    ]));
}), function ($port) {
    $json = '{"a":[1,2,3],"b":"x y"}';
    $r = rsw_request($port, 'PUT', '/json', ['Content-Type' => 'application/json'], $json);
    $j = json_decode($r['body'], true);
    var_dump($r['status'], $j['raw'] === $json, $j['content'] === $json, $j['method'], $j['post']);
    $r = rsw_request($port, 'DELETE', '/x');
    $j = json_decode($r['body'], true);
    var_dump($j['method'], empty($j['raw'])); // no body: "" (Swoole 6.2) or false
});
?>
--EXPECT--
int(200)
bool(true)
bool(true)
string(3) "PUT"
NULL
string(6) "DELETE"
bool(true)
