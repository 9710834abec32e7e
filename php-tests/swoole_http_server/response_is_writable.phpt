--TEST--
swoole_http_server: isWritable() is true before end() and false after it
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The handler records isWritable() before and after end(); /report returns it from the same worker.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    static $report = null;
    if ($req->server['request_uri'] === '/report') {
        $resp->end(json_encode($report));
        return;
    }
    $before = $resp->isWritable();
    $resp->end('x');
    $report = ['before' => $before, 'after' => $resp->isWritable()];
}), function ($port) {
    var_dump(rsw_http_get($port, '/a')[0]);
    echo rsw_http_get($port, '/report')[2], "\n";
});
?>
--EXPECT--
int(200)
{"before":true,"after":false}
