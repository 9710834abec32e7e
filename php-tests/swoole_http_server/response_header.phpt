--TEST--
swoole_http_server: header() adds response headers; names go out in Title-Case
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// 'content-type' goes out as 'Content-Type'; with $format=false the name goes out as given, as in
// Swoole ('x-lower-case'; header_format_false.phpt checks the raw bytes).
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    var_dump($resp->header('content-type', 'application/json'));
    $resp->header('x-custom-thing', 'Value With Spaces');
    $resp->header('x-lower-case', 'kept', false);
    $resp->end('{}');
}), function ($port) {
    $r = rsw_request($port, 'GET', '/');
    $names = array_column($r['header_lines'], 1, 0);
    var_dump($names['Content-Type'] ?? 'missing', $names['X-Custom-Thing'] ?? 'missing', $names['x-lower-case'] ?? 'missing');
    var_dump(count(rsw_header_all($r, 'content-type')));
});
?>
--EXPECT--
string(16) "application/json"
string(17) "Value With Spaces"
string(4) "kept"
int(1)
