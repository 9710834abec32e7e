--TEST--
swoole_http_client_coro: $ssl = true against a Python TLS server: verified GET with ssl_cafile, untrusted cert, wrong ssl_host_name, allow_self_signed, no verification by default, getPeerCert(), client certificate, keep-alive reuse
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_certs();
$https = new RswTlsPeer('https', $c['server_crt'], $c['server_key']);
$self = new RswTlsPeer('https', $c['self_crt'], $c['self_key']);
$mtls = new RswTlsPeer('https', $c['server_crt'], $c['server_key'], $c['ca_crt']);

Co\run(function () use ($c, $https, $self, $mtls) {
    $get = function (string $host, int $port, array $set, string $path = '/hi') {
        $cli = new Co\Http\Client($host, $port, true);
        $cli->set($set + ['timeout' => 5]);
        $ok = $cli->get($path);
        return [$ok, $cli->statusCode, $cli->errCode, $cli->errMsg, $cli->body, $cli];
    };
    echo "-- verified by ssl_cafile, SNI is the host\n";
    [$ok, $st, $ec, , $body, $cli] = $get('localhost', $https->port, ['ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt']]);
    var_dump($ok, $st, $ec, $body, $cli->ssl);
    $pem = $cli->getPeerCert();
    var_dump(str_starts_with($pem, "-----BEGIN CERTIFICATE-----\n"), str_ends_with($pem, "-----END CERTIFICATE-----\n"));
    $x = openssl_x509_parse($pem);
    var_dump($x['subject']['CN'] ?? null);
    // keep-alive: the second request reuses the TLS connection
    $port1 = $cli->getsockname()['port'];
    var_dump($cli->get('/again'), $cli->body, $cli->getsockname()['port'] === $port1);

    echo "-- an IP host: chain checked, no SNI\n";
    [$ok, $st, , , $body] = $get('127.0.0.1', $https->port, ['ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt']]);
    var_dump($ok, $st, $body);

    echo "-- ssl_capath\n";
    $dir = $c['dir'] . '/capath';
    mkdir($dir);
    copy($c['ca_crt'], "$dir/ca.pem");
    [$ok, $st, , , $body] = $get('localhost', $https->port, ['ssl_verify_peer' => true, 'ssl_capath' => $dir]);
    var_dump($ok, $st);

    echo "-- untrusted (system store does not know our CA)\n";
    [$ok, $st, $ec, $em] = $get('localhost', $https->port, ['ssl_verify_peer' => true]);
    var_dump($ok, $st, $ec, $em, $ec === SWOOLE_ERROR_SSL_VERIFY_FAILED);

    echo "-- wrong ssl_host_name\n";
    [$ok, $st, $ec, $em] = $get('127.0.0.1', $https->port, ['ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt'], 'ssl_host_name' => 'other.example']);
    var_dump($ok, $st, $ec, $em);

    echo "-- self-signed: refused, then allowed\n";
    [$ok, $st, $ec] = $get('localhost', $self->port, ['ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt']]);
    var_dump($ok, $st, $ec);
    [$ok, $st, $ec, , $body] = $get('localhost', $self->port, ['ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt'], 'ssl_allow_self_signed' => true]);
    var_dump($ok, $st, $body);

    echo "-- no verification by default (Swoole's ssl_verify_peer = false)\n";
    [$ok, $st, , , $body] = $get('localhost', $self->port, []);
    var_dump($ok, $st, $body);

    echo "-- client certificate\n";
    [$ok, $st, $ec, $em] = $get('localhost', $mtls->port, ['ssl_cafile' => $c['ca_crt'], 'ssl_verify_peer' => true], '/whoami');
    var_dump($ok, $st, $ec > 0);
    [$ok, $st, , , $body] = $get('localhost', $mtls->port, ['ssl_cafile' => $c['ca_crt'], 'ssl_verify_peer' => true, 'ssl_cert_file' => $c['client_crt'], 'ssl_key_file' => $c['client_key']], '/whoami');
    var_dump($ok, $st, $body);

    echo "-- missing cert file\n";
    $cli = new Co\Http\Client('localhost', $mtls->port, true);
    var_dump($cli->set(['ssl_cert_file' => '/nonexistent.crt']));

    echo "-- plain client against TLS\n";
    $cli = new Co\Http\Client('127.0.0.1', $https->port, false);
    $cli->set(['timeout' => 2]);
    var_dump($cli->get('/'), $cli->statusCode < 0 || $cli->statusCode === 400);
});
?>
--EXPECTF--
-- verified by ssl_cafile, SNI is the host
bool(true)
int(200)
int(0)
string(27) "hello tls /hi sni=localhost"
bool(true)
bool(true)
bool(true)
string(9) "localhost"
bool(true)
string(30) "hello tls /again sni=localhost"
bool(true)
-- an IP host: chain checked, no SNI
bool(true)
int(200)
string(18) "hello tls /hi sni="
-- ssl_capath
bool(true)
int(200)
-- untrusted (system store does not know our CA)
bool(false)
int(-1)
int(1014)
string(17) "SSL verify failed"
bool(true)
-- wrong ssl_host_name
bool(false)
int(-1)
int(1014)
string(17) "SSL verify failed"
-- self-signed: refused, then allowed
bool(false)
int(-1)
int(1014)
bool(true)
int(200)
string(%d) "hello tls /hi sni=localhost"
-- no verification by default (Swoole's ssl_verify_peer = false)
bool(true)
int(200)
string(%d) "hello tls /hi sni=localhost"
-- client certificate
bool(false)
int(%i)
bool(true)
bool(true)
int(200)
string(17) "client=rsw-client"
-- missing cert file
%AWarning: Swoole\Coroutine\Http\Client::set(): ssl cert file[/nonexistent.crt] not found in %s on line %d
bool(false)
-- plain client against TLS
bool(false)
bool(true)
