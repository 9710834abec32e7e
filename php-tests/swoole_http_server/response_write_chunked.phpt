--TEST--
swoole_http_server: write() streams chunks with Transfer-Encoding: chunked and the body concatenates
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Three write() calls, then end(): the client sees chunked framing whose data is the concatenation.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->write('first,');
    usleep(50000);
    $resp->write('second,');
    $resp->write(str_repeat('x', 5000));
    $resp->end();
}), function ($port) {
    $r = rsw_request($port, 'GET', '/');
    var_dump($r['status'], rsw_header($r, 'transfer-encoding'), rsw_header($r, 'content-length'));
    var_dump($r['chunked'], $r['body'] === 'first,second,' . str_repeat('x', 5000));
    var_dump(count($r['chunk_sizes']) >= 3, end($r['chunk_sizes']));
});
?>
--EXPECT--
int(200)
string(7) "chunked"
NULL
bool(true)
bool(true)
bool(true)
int(0)
