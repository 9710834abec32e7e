--TEST--
swoole_server_coro: Coroutine\Server with $ssl = true runs the TLS handshake on each accepted connection before the handler (a TLS client is echoed; a plain-text client never reaches the handler)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_certs();

Co\run(function () use ($c) {
    $server = new Swoole\Coroutine\Server('127.0.0.1', 0, true);
    $server->set(['ssl_cert_file' => $c['server_crt'], 'ssl_key_file' => $c['server_key']]);
    $handled = [];
    $server->handle(function (Swoole\Coroutine\Server\Connection $conn) use (&$handled) {
        $data = $conn->recv(3);
        $handled[] = $data;
        $conn->send("Swoole $data");
    });
    go(fn() => $server->start());
    $port = $server->port;

    $plain = new Swoole\Coroutine\Client(SWOOLE_SOCK_TCP);
    $plain->connect('127.0.0.1', $port, 3);
    $plain->send("plain text\n");
    // The server may answer with a TLS alert record before it closes.
    $got = '';
    while (($d = $plain->recv(3)) !== '' && $d !== false) {
        $got .= $d;
    }
    rsw_check('plain-text client closed, no echo', $d === '' && !str_contains($got, 'Swoole'), [$d, bin2hex($got)]);

    $tls = new Swoole\Coroutine\Client(SWOOLE_SOCK_TCP | SWOOLE_SSL);
    rsw_check('TLS connect', $tls->connect('127.0.0.1', $port, 3), [$tls->errCode, $tls->errMsg]);
    $tls->send('hello world');
    rsw_check('TLS client echoed', $tls->recv(3) === 'Swoole hello world');
    rsw_check('only the TLS client reached the handler', $handled === ['hello world'], $handled);
    $server->shutdown();
});
?>
--EXPECT--
plain-text client closed, no echo: OK
TLS connect: OK
TLS client echoed: OK
only the TLS client reached the handler: OK
