--TEST--
swoole_http_server: detach() leaves the request unanswered; Response::create($server, $fd) / create($fd) answers it later from a timer or another coroutine
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $fd = $req->fd;
    $s = rsw_server();
    switch ($req->server['request_uri']) {
        case '/timer':
            $ok = $resp->detach();
            $after = [@$resp->end('too early'), $resp->isWritable(), $resp->detach()];
            Swoole\Timer::after(100, function () use ($s, $fd, $ok, $after) {
                $r = Swoole\Http\Response::create($s, $fd);
                $r->status(202);
                $r->header('X-Late', 'yes');
                $r->end(json_encode([$ok, $after, get_class($r), $r->fd === $fd]));
            });
            return;
        case '/coroutine':
            $resp->detach();
            go(function () use ($fd) {
                Swoole\Coroutine::sleep(0.1);
                Swoole\Http\Response::create($fd)->end('from another coroutine');
            });
            return;
    }
}), function ($port) {
    $t = microtime(true);
    $r = rsw_request($port, 'GET', '/timer');
    echo $r['status'], ' ', rsw_header($r, 'x-late'), ' ', $r['body'], "\n";
    var_dump(microtime(true) - $t >= 0.09);
    $r = rsw_request($port, 'GET', '/coroutine');
    echo $r['status'], ' ', $r['body'], "\n";
});
?>
--EXPECT--
202 yes [true,[false,false,false],"Swoole\\Http\\Response",true]
bool(true)
200 from another coroutine
