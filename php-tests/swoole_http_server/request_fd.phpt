--TEST--
swoole_http_server: $request->fd is an int that identifies the connection
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Two requests on one keep-alive connection share an fd; two open connections have different fds.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end(var_export($req->fd, true));
}), function ($port) {
    $a = new RswConn($port);
    $b = new RswConn($port);
    $req = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    $a->send($req);
    $fa1 = $a->readResponse()['body'];
    $b->send($req);
    $fb = $b->readResponse()['body'];
    $a->send($req);
    $fa2 = $a->readResponse()['body'];
    var_dump(preg_match("/^[0-9]+$/", $fa1) === 1 && (int) $fa1 > 0);
    var_dump($fa1 === $fa2, $fa1 !== $fb);
});
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
