--TEST--
swoole_runtime: SWOOLE_HOOK_SSL/TLS: concurrent file_get_contents('https://...') and stream_socket_client('ssl://...') suspend only their coroutine; the ssl context options (cafile, verify_peer, peer_name, allow_self_signed, local_cert) keep PHP's meaning, and no verify_peer means no verification (Swoole's default); stream_socket_enable_crypto() on a hooked tcp:// stream
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; if (!extension_loaded('openssl')) die('skip openssl'); ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_certs();
$https = new RswTlsPeer('https', $c['server_crt'], $c['server_key']);
$echo = new RswTlsPeer('echo', $c['server_crt'], $c['server_key']);
$self = new RswTlsPeer('echo', $c['self_crt'], $c['self_key']);
$mtls = new RswTlsPeer('https', $c['server_crt'], $c['server_key'], $c['ca_crt']);
$ctx = fn (array $o = []) => stream_context_create(['ssl' => $o + ['cafile' => $c['ca_crt'], 'verify_peer' => true]]);

Co\run(function () use ($c, $https, $echo, $self, $mtls, $ctx) {
    echo "-- 20 concurrent https GETs of 0.2 s\n";
    $t = microtime(true);
    $wg = new Swoole\Coroutine\WaitGroup();
    $ok = 0;
    for ($i = 0; $i < 20; $i++) {
        $wg->add();
        go(function () use ($wg, $https, $ctx, &$ok) {
            $body = file_get_contents("https://localhost:{$https->port}/slow", false, $ctx());
            $ok += $body === 'slow ok';
            $wg->done();
        });
    }
    $wg->wait();
    $el = microtime(true) - $t;
    var_dump($ok);
    rsw_check('overlapped', $el < 1.5, $el);
    if (getenv('RSW_TLS_TIMING')) {
        fprintf(STDERR, "20 hooked https GETs: %.3f s\n", $el);
    }

    echo "-- ssl:// echo while another coroutine ticks\n";
    $ticks = 0;
    go(function () use (&$ticks) {
        for ($i = 0; $i < 5; $i++) {
            Co::sleep(0.01);
            $ticks++;
        }
    });
    $s = stream_socket_client("ssl://localhost:{$echo->port}", $errno, $errstr, 5, STREAM_CLIENT_CONNECT, $ctx());
    var_dump(is_resource($s), fwrite($s, "hi"), fread($s, 100));
    Co::sleep(0.1);
    var_dump($ticks);
    $big = str_repeat('y', 100000);
    fwrite($s, $big);
    $got = '';
    while (substr_count($got, 'y') < 100000 && ($d = fread($s, 65536)) !== '' && $d !== false) {
        $got .= $d;
    }
    var_dump(substr_count($got, 'y'));
    fclose($s);

    echo "-- tls:// with peer_name, wrong peer_name, untrusted, self-signed\n";
    $s = stream_socket_client("tls://127.0.0.1:{$echo->port}", $errno, $errstr, 5, STREAM_CLIENT_CONNECT, $ctx(['peer_name' => 'localhost']));
    var_dump(is_resource($s));
    $s = @stream_socket_client("tls://127.0.0.1:{$echo->port}", $errno, $errstr, 5, STREAM_CLIENT_CONNECT, $ctx(['peer_name' => 'other.example']));
    var_dump($s);
    $s = @stream_socket_client("ssl://localhost:{$echo->port}", $errno, $errstr, 5, STREAM_CLIENT_CONNECT, stream_context_create(['ssl' => ['cafile' => $c['self_crt'], 'verify_peer' => true]]));
    var_dump($s);
    $s = stream_socket_client("ssl://localhost:{$self->port}", $errno, $errstr, 5, STREAM_CLIENT_CONNECT, $ctx(['allow_self_signed' => true]));
    var_dump(is_resource($s));
    $s = stream_socket_client("ssl://localhost:{$self->port}", $errno, $errstr, 5, STREAM_CLIENT_CONNECT, $ctx(['verify_peer' => false]));
    var_dump(is_resource($s), fwrite($s, 'x'), fread($s, 10));
    // Swoole's default: no verification unless the context sets verify_peer.
    $s = stream_socket_client("ssl://127.0.0.1:{$self->port}", $errno, $errstr, 5);
    var_dump(is_resource($s));

    echo "-- client certificate (local_cert/local_pk)\n";
    $body = file_get_contents("https://localhost:{$mtls->port}/whoami", false, $ctx(['local_cert' => $c['client_crt'], 'local_pk' => $c['client_key']]));
    var_dump($body);

    echo "-- stream_socket_enable_crypto on tcp://\n";
    $s = stream_socket_client("tcp://localhost:{$echo->port}", $errno, $errstr, 5, STREAM_CLIENT_CONNECT, $ctx(['peer_name' => 'localhost']));
    var_dump(stream_socket_enable_crypto($s, true, STREAM_CRYPTO_METHOD_TLS_CLIENT), fwrite($s, 'tcp'), fread($s, 100));
});
?>
--EXPECT--
-- 20 concurrent https GETs of 0.2 s
int(20)
overlapped: OK
-- ssl:// echo while another coroutine ticks
bool(true)
int(2)
string(7) "echo:hi"
int(5)
int(100000)
-- tls:// with peer_name, wrong peer_name, untrusted, self-signed
bool(true)
bool(false)
bool(false)
bool(true)
bool(true)
int(1)
string(6) "echo:x"
bool(true)
-- client certificate (local_cert/local_pk)
string(17) "client=rsw-client"
-- stream_socket_enable_crypto on tcp://
bool(true)
int(3)
string(8) "echo:tcp"
