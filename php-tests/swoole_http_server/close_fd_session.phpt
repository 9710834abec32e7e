--TEST--
swoole_http_server: HTTP connections are in the session table: close($request->fd) drops the connection, exists()/getClientInfo() know it, server_addr is set
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    static $closed = null;
    $s = rsw_server();
    $fd = $req->fd;
    switch ($req->server['request_uri']) {
        case '/close':
            $closed = [$fd, $s->close($fd)];
            return;
        case '/info':
            $info = $s->getClientInfo($fd);
            $resp->end(json_encode([
                'exists' => $s->exists($fd),
                'closed_exists' => $closed ? $s->exists($closed[0]) : null,
                'close_result' => $closed ? $closed[1] : null,
                'remote_port_matches' => is_array($info) && $info['remote_port'] === $req->server['remote_port'],
                'server_port_matches' => is_array($info) && $info['server_port'] === $req->server['server_port'],
                'in_list' => in_array($fd, iterator_to_array((function () use ($s) { foreach ($s->connections as $c) { yield $c; } })(), false), true),
                'server_addr' => $req->server['server_addr'] ?? null,
                'remote_addr' => $req->server['remote_addr'],
            ]));
            return;
    }
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET /close HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    $r = $c->readResponse(false, 3.0);
    // No response at all: the connection was dropped.
    var_dump($r === null, $c->eof);
    $body = rsw_http_get($port, '/info')[2];
    var_dump(json_decode($body, true));
});
?>
--EXPECT--
bool(true)
bool(true)
array(8) {
  ["exists"]=>
  bool(true)
  ["closed_exists"]=>
  bool(false)
  ["close_result"]=>
  bool(true)
  ["remote_port_matches"]=>
  bool(true)
  ["server_port_matches"]=>
  bool(true)
  ["in_list"]=>
  bool(true)
  ["server_addr"]=>
  string(9) "127.0.0.1"
  ["remote_addr"]=>
  string(9) "127.0.0.1"
}
