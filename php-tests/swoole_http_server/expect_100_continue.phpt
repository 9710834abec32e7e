--TEST--
swoole_http_server: Expect: 100-continue gets "100 Continue" before the body is sent, then the final response
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The client sends only the headers and waits for the interim response before sending the body.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('got ' . $req->rawContent());
}), function ($port) {
    $c = new RswConn($port);
    $c->send("POST /up HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 11\r\n\r\n");
    $deadline = microtime(true) + 3;
    while (!str_contains($c->buf, "\r\n\r\n") && microtime(true) < $deadline && $c->fill(0.2)) {
    }
    var_dump(preg_match('~^HTTP/1\.1 100 Continue\r\n\r\n$~', $c->buf) === 1);
    $c->buf = '';
    $c->send('hello world');
    $r = $c->readResponse();
    var_dump($r['status'], $r['body']);
});
?>
--EXPECT--
bool(true)
int(200)
string(15) "got hello world"
