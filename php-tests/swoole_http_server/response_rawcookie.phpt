--TEST--
swoole_http_server: rawcookie() sends the value without url-encoding, unlike cookie()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The same value through cookie() and rawcookie().
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->cookie('enc', 'a%20b');
    $resp->rawcookie('raw', 'a%20b', 0, '/x');
    $resp->end('ok');
}), function ($port) {
    $r = rsw_request($port, 'GET', '/');
    foreach (rsw_header_all($r, 'set-cookie') as $l) {
        echo $l, "\n";
    }
});
?>
--EXPECT--
enc=a%2520b
raw=a%20b; path=/x
