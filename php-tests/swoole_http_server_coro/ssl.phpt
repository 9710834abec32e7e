--TEST--
swoole_http_server_coro: Co\Http\Server with $ssl = true (ssl_cert_file/ssl_key_file): a verifying Coroutine\Http\Client gets the answer over TLS, 20 concurrent TLS requests run at once, a plain-text client on the TLS port is refused and the server keeps serving; a TLS server without a certificate fails in start()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_certs();

Co\run(function () use ($c) {
    $s = new Co\Http\Server('127.0.0.1', 0, true);
    echo 'ssl property: ', var_export($s->ssl, true), "\n";
    $s->set(['ssl_cert_file' => $c['server_crt'], 'ssl_key_file' => $c['server_key']]);
    $s->handle('/', function ($req, $resp) {
        if ($req->server['request_uri'] === '/slow') {
            Co::sleep(0.2);
        }
        $resp->end('tls ok ' . $req->server['request_uri']);
    });
    go(fn () => $s->start());
    $port = $s->port;
    $get = function (string $path) use ($port, $c) {
        $cli = new Co\Http\Client('localhost', $port, true);
        $cli->set(['ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt'], 'timeout' => 5]);
        $cli->get($path);
        return $cli->statusCode . ' ' . $cli->body;
    };
    echo $get('/first'), "\n";

    $t = microtime(true);
    $wg = new Co\WaitGroup();
    $ok = 0;
    for ($i = 0; $i < 20; $i++) {
        $wg->add();
        go(function () use ($get, $wg, &$ok) {
            $ok += $get('/slow') === '200 tls ok /slow';
            $wg->done();
        });
    }
    $wg->wait();
    $el = microtime(true) - $t;
    echo "20 concurrent: $ok ok, under 1 s: ", var_export($el < 1.0, true), "\n";

    $plain = new Co\Http\Client('127.0.0.1', $port, false);
    $plain->set(['timeout' => 2]);
    $plain->get('/');
    echo 'plain text client: ', var_export($plain->statusCode < 0, true), "\n";
    echo 'after it: ', $get('/again'), "\n";
    $s->shutdown();

    $bad = new Co\Http\Server('127.0.0.1', 0, true);
    try {
        $bad->start();
        echo "started without a certificate\n";
    } catch (Swoole\Exception $e) {
        echo 'no certificate: ', get_class($e), "\n";
    }
});
?>
--EXPECTF--
ssl property: true
200 tls ok /first
20 concurrent: 20 ok, under 1 s: true
[%s]	WARNING	Socket::ssl_accept(): bad SSL client[127.0.0.1:%d], reason=%d, error_string=%s
plain text client: true
after it: 200 tls ok /again
no certificate: Swoole\Exception
