--TEST--
swoole_http_server: a client that sends a partial header and then idles is disconnected (heartbeat_idle_time)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// heartbeat_check_interval=1, heartbeat_idle_time=2: the idle half-request is closed within 8 s.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('ok');
}, ['heartbeat_check_interval' => 1, 'heartbeat_idle_time' => 2]), function ($port) {
    $c = new RswConn($port);
    $c->send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Partial: ");
    $t0 = microtime(true);
    $closed = $c->closedByPeer(8);
    $elapsed = microtime(true) - $t0;
    var_dump($closed);
    rsw_check('not closed before the idle time', $elapsed >= 1.0, round($elapsed, 2));
    echo rsw_http_get($port, '/')[2], "\n";
});
?>
--EXPECT--
bool(true)
not closed before the idle time: OK
ok
