--TEST--
swoole_http_server: a malformed request line gets 400 and the connection is closed; the handler is not called
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Garbage and a request line without a version; afterwards a good request is served and reports the handler count.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    static $calls = 0;
    $calls++;
    $resp->end("calls=$calls");
}), function ($port) {
    foreach (["THIS IS NOT HTTP\r\n\r\n", "GET /\r\nHost: x\r\n\r\n"] as $bad) {
        $c = new RswConn($port);
        $c->send($bad);
        $r = $c->readResponse(false, 3);
        echo $r['status'] ?? 'no response', "\n";
        var_dump($c->closedByPeer(3));
    }
    echo rsw_http_get($port, '/')[2], "\n";
});
?>
--EXPECT--
400
bool(true)
400
bool(true)
calls=1
