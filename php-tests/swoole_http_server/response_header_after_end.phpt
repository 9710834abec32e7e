--TEST--
swoole_http_server: header() after end() returns false with a warning and the server keeps serving
--DESCRIPTION--
rswoole contract: Swoole 6.2.1 returns false silently (it only sets swoole_last_error); rswoole also warns.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// /late sets a header after end(); /report on the same worker returns what happened.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    static $report = null;
    if ($req->server['request_uri'] === '/report') {
        $resp->end(json_encode($report));
        return;
    }
    $resp->end('done');
    $warnings = [];
    set_error_handler(function ($no, $msg) use (&$warnings) { $warnings[] = $msg; return true; });
    $ret = $resp->header('X-Late', 'yes');
    restore_error_handler();
    $report = ['header' => $ret, 'warned' => count($warnings) > 0];
}), function ($port) {
    $r = rsw_request($port, 'GET', '/late');
    var_dump($r['status'], $r['body'], rsw_header($r, 'x-late'));
    [$s, , $report] = rsw_http_get($port, '/report');
    var_dump($s);
    echo $report, "\n";
});
?>
--EXPECT--
int(200)
string(4) "done"
NULL
int(200)
{"header":false,"warned":true}
