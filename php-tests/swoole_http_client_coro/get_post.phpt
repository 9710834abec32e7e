--TEST--
swoole_http_client_coro: get/post/execute against an rswoole Http\Server: status, headers, cookies, bodies, getHeaderOut, keep-alive reuse
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Every request of one client reuses the same keep-alive connection (the server sees one fd).
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $uri = $req->server['request_uri'];
    if ($uri === '/missing') {
        $resp->status(404);
        $resp->end('nope');
        return;
    }
    $resp->cookie('sess', 'a b');
    $resp->cookie('theme', 'dark');
    $resp->header('X-Method', $req->getMethod());
    $resp->end(json_encode([
        'uri' => $uri,
        'query' => $req->get,
        'post' => $req->post,
        'raw' => $req->getContent(),
        'cookie' => $req->cookie,
        'x_a' => $req->header['x-a'] ?? null,
        'host' => $req->header['host'] ?? null,
        'ctype' => $req->header['content-type'] ?? null,
        'fd' => $req->fd,
    ]));
}), function (int $port) {
    Co\run(function () use ($port) {
        $c = new Swoole\Coroutine\Http\Client('127.0.0.1', $port);
        $c->setHeaders(['X-A' => 'b']);
        $c->setCookies(['k' => 'v w']);
        var_dump($c->get('/hello?x=1'));
        $r = json_decode($c->body, true);
        var_dump($c->statusCode, $c->getStatusCode(), $r['uri'], $r['query'], $r['x_a'], $r['host'] === "127.0.0.1:$port");
        var_dump($r['cookie'], $c->headers['x-method'], $c->getHeaders()['content-type']);
        var_dump($c->cookies, $c->getCookies() === $c->cookies, $c->set_cookie_headers);
        $fd = $r['fd'];

        var_dump($c->post('/p', ['a' => 1, 'b' => ['x' => 2]]));
        $r = json_decode($c->getBody(), true);
        var_dump($r['post'], $r['ctype'], $c->headers['x-method'], $r['fd'] === $fd);
        // The cookie jar now holds the server's cookies too.
        var_dump($r['cookie']);

        $c->setMethod('PUT');
        $c->setData('raw body');
        var_dump($c->execute('/put'));
        $r = json_decode($c->body, true);
        var_dump($c->headers['x-method'], $r['raw'], $r['fd'] === $fd);
        $out = $c->getHeaderOut();
        var_dump(str_starts_with($out, "PUT /put HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n"), str_contains($out, "Connection: keep-alive"), str_ends_with($out, "\r\n") === false);

        var_dump($c->get('/missing'), $c->statusCode, $c->body);
        $local = $c->getsockname()['port'];
        var_dump($c->requestMethod, $c->connected, $c->host, $c->port, $c->ssl);
        var_dump($c->close(), $c->connected, $c->close());
        // A closed client connects again on the next request.
        $c->setData(null);
        var_dump($c->get('/again'), $c->getsockname()['port'] !== $local);

        // keep_alive => false: "Connection: closed" and a new connection per request.
        $k = new Co\Http\Client('127.0.0.1', $port);
        $k->set(['keep_alive' => false]);
        var_dump($k->get('/a'), $k->connected, str_contains($k->getHeaderOut(), 'Connection: closed'), $k->setting);
    });
});
?>
--EXPECTF--
bool(true)
int(200)
int(200)
string(6) "/hello"
array(1) {
  ["x"]=>
  string(1) "1"
}
string(1) "b"
bool(true)
array(1) {
  ["k"]=>
  string(3) "v w"
}
string(3) "GET"
string(9) "text/html"
array(3) {
  ["k"]=>
  string(3) "v w"
  ["sess"]=>
  string(3) "a b"
  ["theme"]=>
  string(4) "dark"
}
bool(true)
array(2) {
  [0]=>
  string(8) "sess=a+b"
  [1]=>
  string(10) "theme=dark"
}
bool(true)
array(2) {
  ["a"]=>
  string(1) "1"
  ["b"]=>
  array(1) {
    ["x"]=>
    string(1) "2"
  }
}
string(33) "application/x-www-form-urlencoded"
string(4) "POST"
bool(true)
array(3) {
  ["k"]=>
  string(3) "v w"
  ["sess"]=>
  string(3) "a b"
  ["theme"]=>
  string(4) "dark"
}
bool(true)
string(3) "PUT"
string(8) "raw body"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(404)
string(4) "nope"
string(3) "GET"
bool(true)
string(9) "127.0.0.1"
int(%d)
bool(false)
bool(true)
bool(false)
bool(false)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
array(1) {
  ["keep_alive"]=>
  bool(false)
}
