--TEST--
swoole_http2_server: Response::trailer() sends trailers, ping() a PING and goaway() a GOAWAY with the code, debug data and last stream id on an h2 connection (seen by nghttp and by Co\Http2\Client); on HTTP/1.1 goaway()/ping() warn and return false
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc';
if (!is_executable('/usr/bin/nghttp')) die('skip nghttp (nghttp2-client) not installed'); ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$server = rsw_http_server_fn(function ($req, $resp) {
    switch ($req->server['request_uri']) {
        case '/trailer':
            $resp->header('content-type', 'application/grpc');
            $resp->header('trailer', 'grpc-status, grpc-message');
            $resp->trailer('grpc-status', '0');
            $resp->trailer('Grpc-Message', 'fine');
            $resp->end('payload');
            return;
        case '/ping':
            $n = 0;
            Swoole\Timer::tick(50, function ($id) use ($resp, &$n) {
                $ok = $resp->ping();
                if (++$n === 3) {
                    Swoole\Timer::clear($id);
                    $resp->end($ok ? 'pinged' : 'ping failed');
                }
            });
            return;
        case '/goaway':
            $ok = $resp->goaway(SWOOLE_HTTP2_ERROR_ENHANCE_YOUR_CALM, 'bye');
            $resp->end($ok ? 'after goaway' : 'goaway failed');
            return;
        case '/h1':
            ob_start();
            $g = $resp->goaway();
            $p = $resp->ping();
            $t = $resp->trailer('x', 'y');
            $warn = ob_get_clean();
            $resp->end(json_encode([$g, $p, $t]));
            return;
    }
}, ['open_http2_protocol' => true, 'display_errors' => true]);

rsw_run_server($server, function (int $port) {
    $nghttp = function (string $path) use ($port): string {
        exec('timeout 5 nghttp -nv http://127.0.0.1:' . $port . $path . ' 2>&1', $out);
        return implode("\n", $out);
    };
    $o = $nghttp('/trailer');
    rsw_check('nghttp: trailers in a last HEADERS frame', preg_match('/recv DATA frame.*\n(.*\n)*.*recv HEADERS frame <[^>]*flags=0x05/', $o) === 1
        && str_contains($o, 'grpc-status: 0') && str_contains($o, 'grpc-message: fine'), $o);
    $o = $nghttp('/ping');
    rsw_check('nghttp: 3 PING frames from the server', substr_count($o, 'recv PING frame <length=8, flags=0x00') === 3, $o);
    $o = $nghttp('/goaway');
    rsw_check('nghttp: GOAWAY with code, last stream and debug data',
        (bool) preg_match('/recv GOAWAY frame .*\n.*last_stream_id=13, error_code=ENHANCE_YOUR_CALM\(0x0b\), opaque_data\(3\)=\[bye\]/', $o), $o);

    Co\run(function () use ($port) {
        $c = new Swoole\Coroutine\Http2\Client('127.0.0.1', $port);
        $c->connect();
        $r = new Swoole\Http2\Request();
        $r->path = '/trailer';
        $c->send($r);
        $resp = $c->recv(5);
        $h = $resp->headers ?? [];
        unset($h['date']);
        rsw_check('client: trailers join the headers', $h === [
            'content-type' => 'application/grpc', 'trailer' => 'grpc-status, grpc-message', 'server' => 'swoole-http-server',
            'content-length' => '7', 'grpc-status' => '0', 'grpc-message' => 'fine'] && $resp->data === 'payload', $h);
        $r->path = '/ping';
        $c->send($r);
        $resp = $c->recv(5);
        rsw_check('client: answer after the pings', $resp && $resp->data === 'pinged', $resp->data ?? $c->errMsg);
        $r->path = '/goaway';
        $sid = $c->send($r);
        $resp = $c->recv(5);
        rsw_check('client: recv() fails on GOAWAY', $resp === false && $c->errCode === SWOOLE_HTTP2_ERROR_ENHANCE_YOUR_CALM
            && $c->errMsg === 'bye' && $c->serverLastStreamId === $sid && !$c->connected, [$c->errCode, $c->errMsg, $c->serverLastStreamId, $sid]);
    });

    [$status, , $body] = rsw_http_get($port, '/h1');
    rsw_check('HTTP/1.1: goaway false, ping false, trailer true', $status === 200 && $body === '[false,false,true]', $body);
});
?>
--EXPECT--
nghttp: trailers in a last HEADERS frame: OK
nghttp: 3 PING frames from the server: OK
nghttp: GOAWAY with code, last stream and debug data: OK
client: trailers join the headers: OK
client: answer after the pings: OK
client: recv() fails on GOAWAY: OK
HTTP/1.1: goaway false, ping false, trailer true: OK
