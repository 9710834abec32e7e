--TEST--
swoole_server: a listen() port with no set() of its own inherits the server's protocol (HTTP on an Http\Server, answered by the server's request callback); one with set() speaks what it set (raw TCP here)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$plain = rsw_free_port();
$raw = rsw_free_port();
rsw_run_server(function (int $port, callable $ready, string $host) use ($plain, $raw) {
    $http = new Swoole\Http\Server($host, $port, SWOOLE_BASE);
    $http->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $http->on('workerStart', fn() => $ready());
    $http->on('request', function ($req, $resp) {
        $resp->end('http on ' . $req->server['server_port']);
    });
    $http->listen($host, $plain, SWOOLE_SOCK_TCP);
    $r = $http->listen($host, $raw, SWOOLE_SOCK_TCP);
    $r->set(['open_http_protocol' => false]);
    $r->on('receive', function ($s, $fd, $rid, $data) { $s->send($fd, 'raw'); });
    $http->start();
}, function (int $port) use ($plain, $raw) {
    [$status, , $body] = rsw_http_get($plain, '/');
    rsw_check('port without set(): HTTP, the server\'s request callback', $status === 200 && $body === "http on $plain", [$status, $body]);
    $c = new RswConn($raw);
    $c->send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    $c->fill(3);
    rsw_check('port with set(open_http_protocol false): raw TCP', $c->buf === 'raw', $c->buf);
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
port without set(): HTTP, the server's request callback: OK
port with set(open_http_protocol false): raw TCP: OK
