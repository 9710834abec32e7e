--TEST--
swoole_http_server: sendfile() of a directory returns false with Swoole's warning and SWOOLE_ERROR_SERVER_IS_NOT_REGULAR_FILE; the response can still be ended
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$dir = rsw_tmpdir();
$t = rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($dir) {
    $ok = $resp->sendfile($dir);
    $resp->end(json_encode([$ok, swoole_last_error()]));
}), function ($port) {
    echo rsw_http_get($port, '/')[2], "\n";
});
var_dump(str_contains($t->log(), 'given is not a regular file'));
?>
--EXPECT--
[false,9013]
bool(true)
