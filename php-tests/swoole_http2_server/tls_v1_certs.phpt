--TEST--
swoole_http2_server: X.509 v1 certificates (no extensions) work as with OpenSSL: an h2/HTTPS server with a v1 certificate starts, mutual TLS against a v1 CA accepts a v1 client certificate it signed (h2 and HTTP/1.1 clients, verified with ssl_cafile) and refuses one signed by another CA or none
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_v1_certs();
exec('openssl x509 -noout -text -in ' . escapeshellarg($c['client_crt']), $text);
rsw_check('the test certificates are v1', str_contains(implode("\n", $text), 'Version: 1 (0x0)'));

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
        $h2 = function (?string $who) use ($port, $c) {
            $cli = new Swoole\Coroutine\Http2\Client('127.0.0.1', $port, true);
            $cli->set(['timeout' => 5] + ($who === null ? [] : ['ssl_cert_file' => $c["{$who}_crt"], 'ssl_key_file' => $c["{$who}_key"]]));
            if (!$cli->connect() || !$cli->send(new Swoole\Http2\Request())) {
                return 'refused';
            }
            $r = $cli->recv(5);
            $cli->close();
            return $r && $r->statusCode === 200 ? $r->data : 'refused';
        };
        rsw_check('h2 with the v1 client certificate', ($got = $h2('client')) === 'HTTP/2 client-cert', $got);
        rsw_check('a v1 client certificate from another CA is refused', ($got = $h2('stranger')) === 'refused', $got);
        rsw_check('no client certificate is refused', ($got = $h2(null)) === 'refused', $got);

        $cli = new Swoole\Coroutine\Http\Client('127.0.0.1', $port, true);
        $cli->set(['timeout' => 5, 'ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt'],
            'ssl_cert_file' => $c['client_crt'], 'ssl_key_file' => $c['client_key']]);
        $ok = $cli->get('/');
        rsw_check('HTTP/1.1 verifying the v1 server certificate against the v1 CA', $ok && $cli->body === 'HTTP/1.1 client-cert',
            [$cli->errCode, $cli->errMsg, $cli->body]);

        $cli = new Swoole\Coroutine\Http\Client('127.0.0.1', $port, true);
        $cli->set(['timeout' => 5, 'ssl_verify_peer' => true, 'ssl_cafile' => $c['other_ca_crt'],
            'ssl_cert_file' => $c['client_crt'], 'ssl_key_file' => $c['client_key']]);
        rsw_check('the v1 server certificate is not trusted under another CA', !$cli->get('/'), [$cli->statusCode, $cli->body]);
    });
});
?>
--EXPECT--
the test certificates are v1: OK
h2 with the v1 client certificate: OK
a v1 client certificate from another CA is refused: OK
no client certificate is refused: OK
HTTP/1.1 verifying the v1 server certificate against the v1 CA: OK
the v1 server certificate is not trusted under another CA: OK
