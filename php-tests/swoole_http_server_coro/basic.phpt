--TEST--
swoole_http_server_coro: Co\Http\Server under Co\run: properties, set() merging, routing by longest case-insensitive prefix with "/" as fallback and 404 without one, Request/Response objects, keep-alive, 50 concurrent slow requests in one process, shutdown() makes start() return
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

// One raw keep-alive connection: several requests on it, answers read in order.
function raw_keepalive(int $port, array $paths): array
{
    $c = stream_socket_client("tcp://127.0.0.1:$port", $en, $es, 2);
    $out = [];
    foreach ($paths as $p) {
        fwrite($c, "GET $p HTTP/1.1\r\nHost: x\r\n\r\n");
        $head = '';
        while (!str_contains($head, "\r\n\r\n") && !feof($c)) {
            $head .= fread($c, 1);
        }
        preg_match('/Content-Length: (\d+)/i', $head, $m);
        $body = $m ? fread($c, (int) $m[1]) : '';
        $out[] = (int) substr($head, 9, 3) . ' ' . $body;
    }
    fclose($c);
    return $out;
}

Co\run(function () {
    $s = new Co\Http\Server('127.0.0.1', 0);
    echo get_class($s), ' port>0=', var_export($s->port > 0, true), ' fd>0=', var_export($s->fd > 0, true),
        ' host=', $s->host, ' ssl=', var_export($s->ssl, true), ' settings=', var_export($s->settings, true),
        ' errCode=', $s->errCode, "\n";
    var_dump($s->set([]));
    $s->set(['http_parse_post' => true]);
    $s->set(['http_compression' => false]);
    echo 'settings: ', json_encode($s->settings), "\n";

    $s->handle('/api', function ($req, $resp) {
        $resp->header('X-Route', 'api');
        $resp->end('api ' . $req->server['request_uri'] . ' ' . json_encode($req->get));
    });
    $s->handle('/api/v2', function (Swoole\Http\Request $req, Swoole\Http\Response $resp) {
        Co::sleep(0.2);
        $resp->status(201);
        $resp->end('v2 ' . $req->server['request_method'] . ' ' . $req->rawContent() . ' ' . json_encode($req->post));
    });
    $s->handle('/stop', function ($req, $resp) use ($s) {
        $resp->end('bye');
        $s->shutdown();
    });
    $port = $s->port;
    go(function () use ($s, $port) {
        $c = new Co\Http\Client('127.0.0.1', $port);
        foreach (['/nothing', '/api?x=1', '/API/v2/deep', '/api/v'] as $p) {
            $c->get($p);
            echo "GET $p: ", $c->statusCode, ' ', $c->body, ' ', $c->headers['x-route'] ?? '-', "\n";
        }
        $c->post('/api/v2', ['k' => 'v']);
        echo 'POST: ', $c->statusCode, ' ', $c->body, "\n";

        // A fallback handler registered while the server runs.
        $s->handle('/', function ($req, $resp) { $resp->end('root ' . $req->server['request_uri']); });
        $c->get('/nothing');
        echo 'fallback: ', $c->statusCode, ' ', $c->body, "\n";

        echo 'keep-alive: ', implode(' | ', raw_keepalive($port, ['/api?n=1', '/api?n=2', '/zzz'])), "\n";

        $t = microtime(true);
        $wg = new Co\WaitGroup();
        $ok = 0;
        for ($i = 0; $i < 50; $i++) {
            $wg->add();
            go(function () use ($port, $wg, &$ok) {
                $c = new Co\Http\Client('127.0.0.1', $port);
                $c->get('/api/v2');
                $ok += $c->statusCode === 201;
                $wg->done();
            });
        }
        $wg->wait();
        $el = microtime(true) - $t;
        echo "50 requests of 0.2 s: $ok answered 201, concurrently (< 1 s): ", $el < 1.0 ? 'OK' : sprintf('FAIL %.2f', $el), "\n";

        $c->get('/stop');
        echo 'stop: ', $c->body, "\n";
    });
    $r = $s->start();
    Co::sleep(0.1); // the client prints its last line first
    echo 'start() returned ', var_export($r, true), "\n";
    $c = new Co\Http\Client('127.0.0.1', $port);
    $c->set(['timeout' => 0.3]);
    $c->get('/api');
    echo 'after shutdown, a request is not served: ', $c->statusCode, "\n";

    try {
        new Co\Http\Server('', 0);
    } catch (Swoole\Exception $e) {
        echo get_class($e), ': ', $e->getMessage(), ' ', $e->getCode(), "\n";
    }
    $busy = new Co\Http\Server('127.0.0.1', 0);
    try {
        new Co\Http\Server('127.0.0.1', $busy->port);
    } catch (Swoole\Exception $e) {
        echo get_class($e), ': ', str_replace((string) $busy->port, 'PORT', $e->getMessage()), ' ', $e->getCode(), "\n";
    }
});
?>
--EXPECT--
Swoole\Coroutine\Http\Server port>0=true fd>0=true host=127.0.0.1 ssl=false settings=NULL errCode=0
bool(false)
settings: {"http_parse_post":true,"http_compression":false}
GET /nothing: 404  -
GET /api?x=1: 200 api /api {"x":"1"} api
GET /API/v2/deep: 201 v2 GET  null -
GET /api/v: 200 api /api/v null api
POST: 201 v2 POST k=v {"k":"v"}
fallback: 200 root /nothing
keep-alive: 200 api /api {"n":"1"} | 200 api /api {"n":"2"} | 200 root /zzz
50 requests of 0.2 s: 50 answered 201, concurrently (< 1 s): OK
stop: bye
start() returned true
after shutdown, a request is not served: -2
Swoole\Exception: host is empty 22
Swoole\Exception: bind(127.0.0.1:PORT) failed 98
