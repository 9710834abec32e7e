--TEST--
swoole_http2_client_coro: h2c prior knowledge to an rswoole server: multiplexed send/recv, headers, cookies, form data, pipeline write(), read() pieces, stats, isStreamExist, ping, close and the not-connected errors
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$server = rsw_http_server_fn(function ($req, $resp) {
    $path = $req->server['request_uri'];
    if ($path === '/slow') {
        // Answers after /fast although asked first: responses come back by stream.
        Swoole\Coroutine::sleep(0.2);
    }
    if ($path === '/stream') {
        $resp->write('part1');
        Swoole\Coroutine::sleep(0.1);
        $resp->write('part2');
        Swoole\Coroutine::sleep(0.1);
        $resp->end('part3');
        return;
    }
    $resp->header('x-stream', (string) $req->streamId);
    $resp->cookie('sid', 'a b');
    $resp->end(json_encode([
        'path' => $path, 'method' => $req->server['request_method'], 'h' => $req->header['x-h'] ?? null,
        'cookie' => $req->cookie ?? null, 'post' => $req->post ?? null, 'body' => $req->rawContent(),
    ]));
}, ['open_http2_protocol' => true]);

rsw_run_server($server, function (int $port) {
    Co\run(function () use ($port) {
        $c = new Swoole\Coroutine\Http2\Client('127.0.0.1', $port);
        $r = new Swoole\Http2\Request();
        rsw_check('send before connect fails', $c->send($r) === false && $c->errCode === SWOOLE_ERROR_CLIENT_NO_CONNECTION, [$c->errCode, $c->errMsg]);
        rsw_check('connect', $c->connect() && $c->connected);
        rsw_check('connect twice fails with EISCONN', $c->connect() === false && $c->errCode === 106, $c->errCode);

        $slow = new Swoole\Http2\Request();
        $slow->path = '/slow';
        $fast = new Swoole\Http2\Request();
        $fast->path = '/fast?q=1';
        $fast->headers = ['x-h' => 'yes'];
        $fast->cookies = ['k' => 'v w'];
        $post = new Swoole\Http2\Request();
        $post->method = 'POST';
        $post->path = '/post';
        $post->data = ['a' => '1', 'b' => 'x y'];
        $ids = [$c->send($slow), $c->send($fast), $c->send($post)];
        rsw_check('stream ids 1 3 5', $ids === [1, 3, 5], $ids);
        rsw_check('current_stream_id is the next id', $c->stats('current_stream_id') === 7, $c->stats());
        rsw_check('isStreamExist(3) while pending', $c->isStreamExist(3) && $c->isStreamExist(0) && !$c->isStreamExist(9));
        $got = [];
        for ($i = 0; $i < 3; $i++) {
            $resp = $c->recv(5);
            if (!$resp) {
                rsw_check("recv $i", false, [$c->errCode, $c->errMsg]);
                break;
            }
            $got[$resp->streamId] = $resp;
        }
        rsw_check('slow stream last', array_key_last($got) === 1, array_keys($got));
        $f = json_decode($got[3]->data, true);
        rsw_check('fast: path, header, cookie', $f['path'] === '/fast' && $f['h'] === 'yes' && $f['cookie'] === ['k' => 'v w'], $f);
        rsw_check('response headers and cookies', $got[3]->statusCode === 200 && $got[3]->headers['x-stream'] === '3'
            && $got[3]->cookies === ['sid' => 'a b'] && count($got[3]->set_cookie_headers) === 1, [$got[3]->headers, $got[3]->cookies]);
        $p = json_decode($got[5]->data, true);
        rsw_check('POST array data is a form', $p['method'] === 'POST' && $p['post'] === ['a' => '1', 'b' => 'x y'], $p);
        rsw_check('response objects', $got[5] instanceof Swoole\Http2\Response && $got[5]->pipeline === false);
        rsw_check('no stream left', $c->stats('active_stream_num') === 0 && !$c->isStreamExist(3));

        // Pipeline request: the body goes out with write().
        $pl = new Swoole\Http2\Request();
        $pl->method = 'POST';
        $pl->path = '/pl';
        $pl->pipeline = true;
        $sid = $c->send($pl);
        rsw_check('pipeline writes', $c->write($sid, 'aa') && $c->write($sid, ['k' => 'v']) && $c->write($sid, 'zz', true));
        rsw_check('write after end fails', $c->write($sid, 'x') === false && $c->errCode === 22, [$c->errCode, $c->errMsg]);
        $resp = $c->recv(5);
        rsw_check('pipeline body arrived whole', $resp && json_decode($resp->data, true)['body'] === 'aak=vzz', $resp->data ?? null);

        // read(): a streamed response comes back piece by piece.
        $st = new Swoole\Http2\Request();
        $st->path = '/stream';
        $c->send($st);
        $pieces = [];
        while (($resp = $c->read(5)) !== false) {
            $pieces[] = [$resp->statusCode, $resp->data, $resp->pipeline];
            if (!$resp->pipeline) {
                break;
            }
        }
        rsw_check('read() pieces', $pieces === [[200, 'part1', true], [0, 'part2', true], [0, 'part3', false]], $pieces);
        // recv() waits for the whole streamed response.
        $c->send($st);
        $resp = $c->recv(5);
        rsw_check('recv() whole streamed body', $resp && $resp->data === 'part1part2part3' && !$resp->pipeline, $resp->data ?? null);

        $t = microtime(true);
        $none = $c->recv(0.2);
        rsw_check('recv timeout', $none === false && $c->errCode === 110 && microtime(true) - $t < 1, [$c->errCode]);
        rsw_check('ping', $c->ping());
        rsw_check('close', $c->close() && !$c->connected && $c->close() === false);
        rsw_check('recv after close fails', $c->recv(1) === false && $c->errCode === SWOOLE_ERROR_CLIENT_NO_CONNECTION);
        rsw_check('reconnect after close', $c->connect() && ($r2 = $c->send($fast)) === 1 && $c->recv(5)->streamId === 1);
        $c->close();

        $bad = new Swoole\Coroutine\Http2\Client('127.0.0.1', rsw_free_port());
        $bad->set(['timeout' => 1]);
        rsw_check('connect refused', !$bad->connect() && $bad->errCode === 111, [$bad->errCode, $bad->errMsg]);
        try {
            new Co\Http2\Client('');
        } catch (Swoole\Coroutine\Http2\Client\Exception $e) {
            echo 'empty host: ', $e->getMessage(), "\n";
        }
    });
});
?>
--EXPECT--
send before connect fails: OK
connect: OK
connect twice fails with EISCONN: OK
stream ids 1 3 5: OK
current_stream_id is the next id: OK
isStreamExist(3) while pending: OK
slow stream last: OK
fast: path, header, cookie: OK
response headers and cookies: OK
POST array data is a form: OK
response objects: OK
no stream left: OK
pipeline writes: OK
write after end fails: OK
pipeline body arrived whole: OK
read() pieces: OK
recv() whole streamed body: OK
recv timeout: OK
ping: OK
close: OK
recv after close fails: OK
reconnect after close: OK
connect refused: OK
empty host: host is empty
