--TEST--
swoole_http_server: a server on ::1 with SWOOLE_SOCK_TCP6 serves requests over IPv6
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
if (@stream_socket_server('tcp://[::1]:0') === false) die('skip no IPv6 loopback');
?>
--FILE--
<?php
// The request reaches the handler over [::1], and remote_addr is the IPv6 loopback.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end($req->server['remote_addr'] . ' ' . rsw_server()->host);
}), function ($port) {
    [$status, , $body] = rsw_http_get($port, '/', [], '::1');
    var_dump($status, $body);
}, 10, ['host' => '::1']);
?>
--EXPECT--
int(200)
string(7) "::1 ::1"
