--TEST--
swoole_http_client_coro: 50 concurrent HTTPS GETs to a server answering after 0.2 s finish together, Accept-Encoding offers br and a br body is decoded, WSS echo through upgrade() on an ssl client
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_certs();
$https = new RswTlsPeer('https', $c['server_crt'], $c['server_key']);
$wss = new RswTlsPeer('wss', $c['server_crt'], $c['server_key']);

/** A brotli stream of one uncompressed meta-block (RFC 7932 9.2), made by hand: no encoder needed. */
function br_stored(string $data): string
{
    $v = ((strlen($data) - 1) << 4) | (1 << 20); // WBITS=16, ISLAST=0, MNIBBLES=4, MLEN-1, ISUNCOMPRESSED
    return chr($v & 0xff) . chr(($v >> 8) & 0xff) . chr(($v >> 16) & 0xff) . $data . "\x03"; // ISLAST, ISLASTEMPTY
}

Co\run(function () use ($c, $https, $wss) {
    $set = ['ssl_verify_peer' => true, 'ssl_cafile' => $c['ca_crt'], 'timeout' => 5];
    echo "-- concurrency\n";
    $t = microtime(true);
    $wg = new Swoole\Coroutine\WaitGroup();
    $ok = 0;
    for ($i = 0; $i < 50; $i++) {
        $wg->add();
        go(function () use ($wg, $https, $set, &$ok) {
            $cli = new Co\Http\Client('localhost', $https->port, true);
            $cli->set($set);
            if ($cli->get('/slow') && $cli->body === 'slow ok') {
                $ok++;
            }
            $wg->done();
        });
    }
    $wg->wait();
    $el = microtime(true) - $t;
    var_dump($ok);
    rsw_check("50 x 0.2 s requests overlapped", $el < 1.0, $el);
    if (getenv("RSW_TLS_TIMING")) {
        fprintf(STDERR, "50 https GETs: %.3f s\n", $el);
    }

    echo "-- br\n";
    $text = str_repeat("brotli over tls\n", 40);
    $cli = new Co\Http\Client('localhost', $https->port, true);
    $cli->set($set);
    var_dump($cli->get('/br?b64=' . rtrim(strtr(base64_encode(br_stored($text)), '+/', '-_'), '=')));
    var_dump($cli->headers['x-accept-encoding'], $cli->headers['content-encoding'], $cli->body === $text);
    $cli->set(['body_decompression' => false]);
    $cli->get('/br?b64=' . rtrim(strtr(base64_encode(br_stored('raw')), '+/', '-_'), '='));
    var_dump($cli->body === br_stored('raw'));

    echo "-- wss\n";
    $ws = new Co\Http\Client('localhost', $wss->port, true);
    $ws->set($set);
    var_dump($ws->upgrade('/'), $ws->statusCode);
    var_dump($ws->push('hello'), $ws->recv()->data);
    $big = random_bytes(100000);
    var_dump($ws->push($big, WEBSOCKET_OPCODE_BINARY));
    $f = $ws->recv(5);
    var_dump($f->opcode, $f->data === 'echo:' . $big);
    $x = openssl_x509_parse($ws->getPeerCert());
    var_dump($x['subject']['CN']);
    var_dump($ws->close());
});
?>
--EXPECT--
-- concurrency
int(50)
50 x 0.2 s requests overlapped: OK
-- br
bool(true)
string(17) "gzip, deflate, br"
string(2) "br"
bool(true)
bool(true)
-- wss
bool(true)
int(101)
bool(true)
string(10) "echo:hello"
bool(true)
int(2)
bool(true)
string(9) "localhost"
bool(true)
