--TEST--
swoole_http2_client_coro: a unix:/path host connects over a Unix stream socket (unix:/, unix://, unix:/// forms) to an h2c Http\Server on SWOOLE_SOCK_UNIX_STREAM; a missing socket file fails connect() with ENOENT
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$path = sys_get_temp_dir() . '/rsw_h2_unix_' . getmypid() . '.sock';
@unlink($path);
$t = new ServerTest(static function (int $port, callable $ready) use ($path): void {
    $s = new Swoole\Http\Server($path, 0, SWOOLE_BASE, SWOOLE_SOCK_UNIX_STREAM);
    $s->set(['worker_num' => 1, 'open_http2_protocol' => true, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', function () use ($ready) { $ready(); });
    $s->on('request', function ($req, $resp) {
        $resp->end(json_encode([$req->server['request_method'], $req->server['request_uri'], $req->streamId, $req->rawContent()]));
    });
    $s->start();
}, ['ready_count' => 1, 'wait_port' => false]);
$t->start();
try {
    Co\run(function () use ($path) {
        foreach (['unix:/', 'unix://', 'unix:///'] as $i => $prefix) {
            // $path is absolute: the host is unix:/ + /tmp/..., so 2, 3 and 4 slashes.
            $c = new Swoole\Coroutine\Http2\Client($prefix . $path, 0, false);
            $c->set(['timeout' => 3]);
            $ok = $c->connect();
            rsw_check("connect #$i", $ok, [$c->errCode, $c->errMsg]);
            $req = new Swoole\Http2\Request();
            $req->method = 'POST';
            $req->path = "/p$i";
            $req->data = "body$i";
            $sid = $c->send($req);
            $resp = $ok ? $c->recv(3) : false;
            rsw_check("response #$i", $resp && $resp->statusCode === 200
                && json_decode($resp->data, true) === ['POST', "/p$i", $sid, "body$i"], $resp ? $resp->data : [$c->errCode, $c->errMsg]);
            $c->close();
        }
        $c = new Swoole\Coroutine\Http2\Client('unix:' . $path . '.missing', 0, false);
        rsw_check('missing socket file', $c->connect() === false && $c->errCode === 2 /* ENOENT */, [$c->errCode, $c->errMsg]);
    });
} finally {
    $t->stop();
    @unlink($path);
}
?>
--EXPECT--
connect #0: OK
response #0: OK
connect #1: OK
response #1: OK
connect #2: OK
response #2: OK
missing socket file: OK
