--TEST--
swoole_http_server: $request->server has the documented keys with the right types and values
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Checks request_method, request_uri, path_info, query_string, request_time(_float), server_protocol,
// server_port, remote_addr, remote_port and master_time against what the client really sent.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end(serialize($req->server));
}), function ($port) {
    $c = new RswConn($port);
    $local = stream_socket_get_name($c->sock, false);
    $localPort = (int) substr($local, strrpos($local, ':') + 1);
    $before = time();
    $c->send("POST /some/path.php?x=1&y=two HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    $r = $c->readResponse();
    $s = unserialize($r['body']);
    var_dump($s['request_method'], $s['request_uri'], $s['path_info'], $s['query_string'], $s['server_protocol']);
    var_dump($s['server_port'] === $port, $s['remote_addr'], $s['remote_port'] === $localPort);
    var_dump(is_int($s['request_time']) && abs($s['request_time'] - $before) <= 2);
    var_dump(is_float($s['request_time_float']) && abs($s['request_time_float'] - $s['request_time']) < 1.0);
    var_dump(is_int($s['master_time']) && abs($s['master_time'] - $before) <= 2);
    $r2 = rsw_http_get($port, '/noquery')[3];
    $s2 = unserialize($r2['body']);
    var_dump($s2['request_uri'], $s2['path_info'], array_key_exists('query_string', $s2) ? $s2['query_string'] : 'absent');
});
?>
--EXPECT--
string(4) "POST"
string(14) "/some/path.php"
string(14) "/some/path.php"
string(9) "x=1&y=two"
string(8) "HTTP/1.1"
bool(true)
string(9) "127.0.0.1"
bool(true)
bool(true)
bool(true)
bool(true)
string(8) "/noquery"
string(8) "/noquery"
string(6) "absent"
