--TEST--
swoole_http2_server: a SWOOLE_SOCK_TCP6 server on "::" leaves IPV6_V6ONLY at the system default as Swoole does, so h2 clients reach it over IPv4 (127.0.0.1) and IPv6 (::1); the request reports each client's address family
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc';
if ((int) @file_get_contents('/proc/sys/net/ipv6/bindv6only') !== 0) die('skip net.ipv6.bindv6only is set');
if (@stream_socket_server('tcp://[::1]:0') === false) die('skip no IPv6 loopback'); ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$server = function (int $port, callable $ready) {
    $http = new Swoole\Http\Server('::', $port, SWOOLE_BASE, SWOOLE_SOCK_TCP6);
    $http->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_ERROR, 'open_http2_protocol' => true]);
    $http->on('workerStart', fn() => $ready());
    $http->on('request', function ($req, $resp) {
        $resp->end($req->getMethod() . ' ' . $req->server['server_protocol'] . ' ' . $req->server['remote_addr']);
    });
    $http->start();
};

rsw_run_server($server, function (int $port) {
    Co\run(function () use ($port) {
        foreach (['127.0.0.1' => '::ffff:127.0.0.1', '::1' => '::1'] as $host => $want) {
            $cli = new Swoole\Coroutine\Http2\Client($host, $port);
            $cli->set(['timeout' => 5]);
            $ok = $cli->connect();
            $req = new Swoole\Http2\Request();
            $req->method = 'POST';
            $req->data = 'x';
            $r = $ok && $cli->send($req) ? $cli->recv(5) : null;
            rsw_check("h2 over $host", $r && $r->data === "POST HTTP/2 $want", [$cli->errCode, $cli->errMsg, $r->data ?? null]);
            $cli->close();
        }
    });
}, 10, ['host' => '::1']);
?>
--EXPECT--
h2 over 127.0.0.1: OK
h2 over ::1: OK
