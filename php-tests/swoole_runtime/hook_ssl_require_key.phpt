--TEST--
swoole_runtime: SWOOLE_HOOK_SSL: a client local_cert without local_pk whose file holds no key gives Swoole's "ssl require key file" warning and the handshake goes on without a client certificate; a combined cert+key PEM in local_cert keeps PHP's meaning (sent as the client certificate)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; if (!extension_loaded('openssl')) die('skip openssl'); ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_certs();
file_put_contents("{$c['dir']}/combined.pem", file_get_contents($c['client_crt']) . file_get_contents($c['client_key']));
// A TLS echo server that does not ask for a client certificate.
$echo = new RswTlsPeer('echo', $c['server_crt'], $c['server_key']);

Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL);
Co\run(function () use ($c, $echo) {
    foreach (['cert only' => $c['client_crt'], 'combined PEM' => "{$c['dir']}/combined.pem"] as $name => $file) {
        $ctx = stream_context_create(['ssl' => ['cafile' => $c['ca_crt'], 'verify_peer' => true, 'local_cert' => $file]]);
        $s = stream_socket_client("ssl://localhost:{$echo->port}", $errno, $errstr, 5, STREAM_CLIENT_CONNECT, $ctx);
        $ok = is_resource($s) && fwrite($s, 'ping') === 4 && fread($s, 100) === 'echo:ping';
        rsw_check("$name: connected and echoed", $ok, [$errno, $errstr]);
        rsw_check("$name: local_cert left in the context", isset(stream_context_get_options($ctx)['ssl']['local_cert']) === ($name !== 'cert only'));
        if (is_resource($s)) {
            fclose($s);
        }
    }
});
?>
--EXPECTF--
Warning: stream_socket_client(): ssl require key file in %s on line %d
cert only: connected and echoed: OK
cert only: local_cert left in the context: OK
combined PEM: connected and echoed: OK
combined PEM: local_cert left in the context: OK
