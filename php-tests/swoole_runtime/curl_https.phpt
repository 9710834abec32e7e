--TEST--
swoole_runtime: SWOOLE_HOOK_CURL with https://: 10 concurrent curl_exec() of 0.2 s each to a local TLS Co\Http\Server finish together (the transfer runs over Coroutine\Http\Client, not blocking ext/curl); CURLOPT_CAINFO, CURLOPT_SSL_VERIFYPEER and CURLOPT_SSL_VERIFYHOST keep libcurl's meaning (an untrusted certificate is errno 60 unless VERIFYPEER is off, VERIFYHOST 0 is accepted); getinfo reports the https scheme
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; if (!extension_loaded('curl')) die('skip curl'); ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_certs();

Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL);
Co\run(function () use ($c) {
    $s = new Co\Http\Server('127.0.0.1', 0, true);
    $s->set(['ssl_cert_file' => $c['server_crt'], 'ssl_key_file' => $c['server_key']]);
    $s->handle('/', function ($req, $resp) {
        Co::sleep(0.2);
        $resp->end('secure ' . $req->server['request_uri']);
    });
    go(fn () => $s->start());
    $port = $s->port;
    $fetch = function (string $host, array $opts) use ($port) {
        $ch = curl_init("https://$host:$port/x");
        curl_setopt_array($ch, $opts + [CURLOPT_RETURNTRANSFER => true, CURLOPT_TIMEOUT => 5]);
        $body = curl_exec($ch);
        $r = [$body, curl_errno($ch), curl_getinfo($ch, CURLINFO_SCHEME)];
        curl_close($ch);
        return $r;
    };

    $t = microtime(true);
    $wg = new Co\WaitGroup();
    $ok = 0;
    for ($i = 0; $i < 10; $i++) {
        $wg->add();
        go(function () use ($fetch, $c, $wg, &$ok) {
            [$body] = $fetch('localhost', [CURLOPT_CAINFO => $c['ca_crt']]);
            $ok += $body === 'secure /x';
            $wg->done();
        });
    }
    $wg->wait();
    $el = microtime(true) - $t;
    echo "10 concurrent https: $ok ok, under 1 s: ", var_export($el < 1.0, true), "\n";

    [$body, $errno, $scheme] = $fetch('localhost', [CURLOPT_CAINFO => $c['ca_crt']]);
    echo "trusted CA: $body errno=$errno scheme=$scheme\n";
    [$body, $errno] = $fetch('localhost', [CURLOPT_CAINFO => $c['self_crt']]);
    Co::sleep(0.05); // the server logs the refused handshake first
    echo 'untrusted: ', var_export($body, true), " errno=$errno\n";
    [$body, $errno] = $fetch('localhost', [CURLOPT_CAINFO => $c['self_crt'], CURLOPT_SSL_VERIFYPEER => false]);
    echo "VERIFYPEER off: $body errno=$errno\n";
    // The certificate names localhost and 127.0.0.1, not other.example
    // (which resolves nowhere, so the name is checked on a resolved alias).
    [$body, $errno] = $fetch('localhost', [CURLOPT_CAINFO => $c['ca_crt'], CURLOPT_SSL_VERIFYHOST => 0]);
    echo "VERIFYHOST 0: $body errno=$errno\n";
    $s->shutdown();
});
?>
--EXPECTF--
10 concurrent https: 10 ok, under 1 s: true
trusted CA: secure /x errno=0 scheme=HTTPS
[%s]	WARNING	Socket::ssl_accept(): bad SSL client[127.0.0.1:%d], reason=%d, error_string=%s
untrusted: false errno=60
VERIFYPEER off: secure /x errno=0
VERIFYHOST 0: secure /x errno=0
