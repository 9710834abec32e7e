--TEST--
swoole_http_client_coro: chunked response (Response::write), compressed response decoded (br, which client and server both prefer, as Swoole built with brotli; raw gzip when only gzip is asked), HEAD without body, keep-alive after both
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    switch ($req->server['request_uri']) {
        case '/chunked':
            foreach (['one ', 'two ', str_repeat('x', 20000), ' end'] as $piece) {
                $resp->write($piece);
                Co::sleep(0.01);
            }
            $resp->end();
            return;
        case '/gzip':
            $resp->end(str_repeat('compress me ', 1000));
            return;
        default:
            $resp->header('X-Fd', (string) $req->fd);
            $resp->end('plain');
    }
}, ['http_compression' => true]), function (int $port) {
    Co\run(function () use ($port) {
        $c = new Co\Http\Client('127.0.0.1', $port);
        var_dump($c->get('/chunked'), $c->statusCode, $c->headers['transfer-encoding'] ?? null, strlen($c->body));
        var_dump(str_starts_with($c->body, 'one two xxx'), str_ends_with($c->body, 'x end'));
        var_dump($c->get('/gzip'), $c->headers['content-encoding'] ?? null, $c->body === str_repeat('compress me ', 1000));
        var_dump(str_contains($c->getHeaderOut(), 'Accept-Encoding: gzip, deflate'));
        $c->setMethod('HEAD');
        var_dump($c->execute('/head'), $c->statusCode, $c->body, $c->headers['content-length']);
        $c->setMethod('GET');
        var_dump($c->execute('/plain'), $c->body);
        // Without decompression the raw gzip bytes stay in the body (the
        // client offers br too, which the server prefers: ask for gzip only).
        $raw = new Co\Http\Client('127.0.0.1', $port);
        $raw->set(['body_decompression' => false]);
        $raw->setHeaders(['Accept-Encoding' => 'gzip']);
        var_dump($raw->get('/gzip'), substr($raw->body, 0, 2) === "\x1f\x8b", gzdecode($raw->body) === str_repeat('compress me ', 1000));
    });
});
?>
--EXPECT--
bool(true)
int(200)
string(7) "chunked"
int(20012)
bool(true)
bool(true)
bool(true)
string(2) "br"
bool(true)
bool(true)
bool(true)
int(200)
string(0) ""
string(1) "5"
bool(true)
string(5) "plain"
bool(true)
bool(true)
bool(true)
