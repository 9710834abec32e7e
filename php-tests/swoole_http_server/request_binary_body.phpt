--TEST--
swoole_http_server: request bodies and form values are binary safe (NUL bytes survive)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// NUL and high bytes in a raw body and in a urlencoded form value reach PHP unchanged.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end(serialize(['raw' => $req->rawContent(), 'post' => $req->post]));
}), function ($port) {
    $raw = "a\0b\0\xff\xfe" . str_repeat("\0", 10) . 'end';
    $r = rsw_request($port, 'POST', '/bin', ['Content-Type' => 'application/octet-stream'], $raw);
    $d = unserialize($r['body']);
    var_dump($r['status'], $d['raw'] === $raw);
    $r = rsw_request($port, 'POST', '/form', ['Content-Type' => 'application/x-www-form-urlencoded'], 'k=' . rawurlencode("x\0y") . '&n=1');
    $d = unserialize($r['body']);
    var_dump($d['post']['k'] === "x\0y", strlen($d['post']['k']), $d['post']['n']);
});
?>
--EXPECT--
int(200)
bool(true)
bool(true)
int(3)
string(1) "1"
