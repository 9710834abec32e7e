--TEST--
swoole_http_server: a second end() returns false with a warning, the first body stands, the server keeps serving
--DESCRIPTION--
rswoole contract: Swoole 6.2.1 returns false silently (it only sets swoole_last_error); rswoole also warns.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// /twice ends twice and remembers what happened; /report (same single worker) returns it.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    static $report = null;
    if ($req->server['request_uri'] === '/report') {
        $resp->end(json_encode($report));
        return;
    }
    $warnings = [];
    set_error_handler(function ($no, $msg) use (&$warnings) { $warnings[] = $msg; return true; });
    $first = $resp->end('first body');
    $second = $resp->end('second body');
    restore_error_handler();
    $report = ['first' => $first, 'second' => $second, 'warned' => count($warnings) > 0];
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET /twice HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    $r = $c->readResponse();
    var_dump($r['status'], $r['body']);
    rsw_check('nothing else on the connection', $c->readAll(0.3) === '');
    [$s, , $report] = rsw_http_get($port, '/report');
    var_dump($s);
    echo $report, "\n";
});
?>
--EXPECT--
int(200)
string(10) "first body"
nothing else on the connection: OK
int(200)
{"first":true,"second":false,"warned":true}
