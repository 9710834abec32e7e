--TEST--
swoole_http2_client_coro: h2 over TLS (ALPN h2) to an rswoole HTTPS server with mutual TLS: verified connect with ssl_cafile and a client certificate, a wrong CA fails with SSL verify failed
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_certs();

$server = function (int $port, callable $ready, string $host) use ($c) {
    $http = new Swoole\Http\Server($host, $port, SWOOLE_BASE, SWOOLE_SOCK_TCP | SWOOLE_SSL);
    $http->set([
        'worker_num' => 1, 'log_level' => SWOOLE_LOG_ERROR, 'open_http2_protocol' => true,
        'ssl_cert_file' => $c['server_crt'], 'ssl_key_file' => $c['server_key'],
        'ssl_verify_peer' => true, 'ssl_client_cert_file' => $c['ca_crt'],
    ]);
    $http->on('workerStart', fn() => $ready());
    $http->on('request', function ($req, $resp) use ($http) {
        $cert = $http->getClientInfo($req->fd)['ssl_client_cert'] ?? '';
        $resp->end($req->server['server_protocol'] . ' ' . (str_contains($cert, 'BEGIN CERTIFICATE') ? 'client-cert' : 'none'));
    });
    $http->start();
};

rsw_run_server($server, function (int $port) use ($c) {
    Co\run(function () use ($port, $c) {
        $cli = new Swoole\Coroutine\Http2\Client('localhost', $port, true);
        $cli->set(['timeout' => 5, 'ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt'],
            'ssl_cert_file' => $c['client_crt'], 'ssl_key_file' => $c['client_key']]);
        rsw_check('verified connect', $cli->connect(), [$cli->errCode, $cli->errMsg]);
        $wg = [];
        for ($i = 0; $i < 4; $i++) {
            $wg[] = $cli->send(new Swoole\Http2\Request());
        }
        $seen = [];
        foreach ($wg as $_) {
            $r = $cli->recv(5);
            $seen[$r->streamId ?? 0] = $r->data ?? null;
        }
        ksort($seen);
        rsw_check('4 streams over h2 with the client certificate', $seen === [1 => 'HTTP/2 client-cert', 3 => 'HTTP/2 client-cert',
            5 => 'HTTP/2 client-cert', 7 => 'HTTP/2 client-cert'], $seen);
        rsw_check('close', $cli->close());

        $bad = new Swoole\Coroutine\Http2\Client('localhost', $port, true);
        $bad->set(['timeout' => 5, 'ssl_verify_peer' => true, 'ssl_cafile' => $c['self_crt']]);
        rsw_check('wrong CA: SSL verify failed', !$bad->connect() && $bad->errCode === 1014, [$bad->errCode, $bad->errMsg]);
    });
});
?>
--EXPECT--
verified connect: OK
4 streams over h2 with the client certificate: OK
close: OK
wrong CA: SSL verify failed: OK
