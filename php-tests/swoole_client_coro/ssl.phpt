--TEST--
swoole_client_coro: SWOOLE_SSL echo against a Python TLS server, verification settings, getPeerCert/verifyPeerCert, enableSSL() after a plain connect, Coroutine\Socket with open_ssl and sslHandshake(), blocking Swoole\Client with SWOOLE_SSL
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_certs();
$echo = new RswTlsPeer('echo', $c['server_crt'], $c['server_key']);
$self = new RswTlsPeer('echo', $c['self_crt'], $c['self_key']);

Co\run(function () use ($c, $echo, $self) {
    echo "-- Co\\Client SWOOLE_SSL, verified\n";
    $cli = new Co\Client(SWOOLE_SOCK_TCP | SWOOLE_SSL);
    $cli->set(['ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt'], 'timeout' => 5]);
    var_dump($cli->connect('localhost', $echo->port));
    var_dump($cli->send("ping"), $cli->recv());
    $big = str_repeat('x', 200000);
    var_dump($cli->send($big));
    $got = '';
    while (substr_count($got, 'x') < strlen($big) && ($d = $cli->recv()) !== '' && $d !== false) {
        $got .= $d;
    }
    var_dump(substr_count($got, 'x'));
    $x = openssl_x509_parse($cli->getPeerCert());
    var_dump($x['subject']['CN'], $cli->verifyPeerCert());
    $cli->close();

    echo "-- untrusted\n";
    $cli = new Co\Client(SWOOLE_SOCK_TCP | SWOOLE_SSL);
    $cli->set(['ssl_verify_peer' => true, 'timeout' => 5]);
    var_dump($cli->connect('localhost', $echo->port), $cli->errCode, $cli->errMsg);

    echo "-- self-signed allowed / not verified\n";
    $cli = new Co\Client(SWOOLE_SOCK_TCP | SWOOLE_SSL);
    $cli->set(['ssl_verify_peer' => true, 'ssl_allow_self_signed' => true, 'ssl_cafile' => $c['ca_crt']]);
    var_dump($cli->connect('127.0.0.1', $self->port), $cli->send('a'), $cli->recv());
    $cli = new Co\Client(SWOOLE_SOCK_TCP | SWOOLE_SSL);
    var_dump($cli->connect('127.0.0.1', $self->port), $cli->send('b'), $cli->recv());
    $cli->set(['ssl_cafile' => $c['ca_crt']]);
    var_dump($cli->verifyPeerCert(false), $cli->errCode, $cli->verifyPeerCert(true));

    echo "-- enableSSL after a plain connect\n";
    $cli = new Co\Client(SWOOLE_SOCK_TCP);
    $cli->set(['ssl_cafile' => $c['ca_crt'], 'ssl_verify_peer' => true]);
    var_dump($cli->connect('localhost', $echo->port), $cli->getPeerCert(), $cli->errCode);
    var_dump($cli->enableSSL(), $cli->send('late'), $cli->recv());

    echo "-- Coroutine\\Socket\n";
    $s = new Co\Socket(AF_INET, SOCK_STREAM, 0);
    var_dump($s->setProtocol(['open_ssl' => true, 'ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt']]));
    var_dump($s->connect('localhost', $echo->port, 5), $s->sendAll('sock'), $s->recv());
    $s = new Co\Socket(AF_INET, SOCK_STREAM, 0);
    var_dump($s->connect('127.0.0.1', $echo->port, 5), $s->sslHandshake(), $s->send('hs'), $s->recv(), $s->sslHandshake(), $s->errCode);
});

echo "-- blocking Swoole\\Client\n";
$cli = new Swoole\Client(SWOOLE_SOCK_TCP | SWOOLE_SSL);
$cli->set(['ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt']]);
var_dump($cli->connect('localhost', $echo->port, 5), $cli->send('sync'), $cli->recv());
var_dump(openssl_x509_parse($cli->getPeerCert())['subject']['CN'], $cli->verifyPeerCert());
?>
--EXPECTF--
-- Co\Client SWOOLE_SSL, verified
bool(true)
int(4)
string(9) "echo:ping"
int(200000)
int(200000)
string(9) "localhost"
bool(true)
-- untrusted
bool(false)
int(1014)
string(17) "SSL verify failed"
-- self-signed allowed / not verified
bool(true)
int(1)
string(6) "echo:a"
bool(true)
int(1)
string(6) "echo:b"
bool(false)
int(1014)
bool(true)
-- enableSSL after a plain connect
bool(true)
bool(false)
int(1013)
bool(true)
int(4)
string(9) "echo:late"
-- Coroutine\Socket
bool(true)
bool(true)
int(4)
string(9) "echo:sock"
bool(true)
bool(true)
int(2)
string(7) "echo:hs"
bool(false)
int(1005)
-- blocking Swoole\Client
bool(true)
int(4)
string(9) "echo:sync"
string(9) "localhost"
bool(true)
