--TEST--
swoole_http_server: on an Http\Server response upgrade()/recv()/push() refuse as Swoole's async server does; close() drops the connection unanswered
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$f = tempnam(sys_get_temp_dir(), 'rswws');
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($f) {
    $log = [];
    set_error_handler(function ($no, $msg) use (&$log) { $log[] = $msg; return true; });
    $r = [$resp->upgrade(), $resp->recv(0.1), $resp->push('x'), $resp->push('x', WEBSOCKET_OPCODE_BINARY)];
    restore_error_handler();
    if ($req->server['request_uri'] === '/close') {
        file_put_contents($f, json_encode([$resp->close(), @$resp->end('after')]) . "\n");
        return;
    }
    $resp->end(json_encode($r) . "\n" . implode("\n", $log));
}), function ($port) use ($f) {
    $r = rsw_request($port, 'GET', '/');
    echo $r['body'], "\n";
    $c = new RswConn($port);
    $c->send("GET /close HTTP/1.1\r\nHost: x\r\n\r\n");
    var_dump($c->closedByPeer(2.0));
    rsw_wait_until(fn () => (clearstatcache() ?? true) && @filesize($f) > 0, 2.0);
    echo file_get_contents($f);
});
@unlink($f);
?>
--EXPECTF--
[false,false,false,false]
Swoole\Http\Response::upgrade(): async server dose not support protocol upgrade
Swoole\Http\Response::recv(): fd[%d] is not a websocket conncetion
Swoole\Http\Response::push(): fd[%d] is not a websocket conncetion
Swoole\Http\Response::push(): fd[%d] is not a websocket conncetion
bool(true)
[true,false]
