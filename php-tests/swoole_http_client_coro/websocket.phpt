--TEST--
swoole_http_client_coro: WebSocket upgrade, push/recv text and 70 kB binary, Frame objects, recv timeout, ping/pong, server close ('' or CloseFrame), disconnect()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('open', function ($s, $req) {
        $s->push($req->fd, 'welcome ' . $req->server['request_uri']);
    });
    $s->on('message', function ($s, $frame) {
        if ($frame->data === 'bye') {
            $s->disconnect($frame->fd, 4000, 'see you');
        } elseif ($frame->opcode === WEBSOCKET_OPCODE_BINARY) {
            $s->push($frame->fd, $frame->data, WEBSOCKET_OPCODE_BINARY);
        } elseif ($frame->data !== 'quiet') {
            $s->push($frame->fd, strtoupper($frame->data));
        }
    });
    $s->start();
}, function (int $port) {
    Co\run(function () use ($port) {
        $c = new Co\Http\Client('127.0.0.1', $port);
        var_dump($c->upgrade('/ws'), $c->statusCode, $c->headers['upgrade'], $c->connected);
        $f = $c->recv();
        var_dump(get_class($f), $f->data, $f->opcode, $f->finish, is_int($f->fd) && $f->fd > 0);
        var_dump($c->push('hello'), $c->recv()->data);
        $big = random_bytes(70000);
        var_dump($c->push($big, WEBSOCKET_OPCODE_BINARY));
        $f = $c->recv(5);
        var_dump($f->opcode, strlen($f->data), $f->data === $big);
        $frame = new Swoole\WebSocket\Frame();
        $frame->data = 'from a frame';
        var_dump($c->push($frame), $c->recv()->data);

        // Nothing comes: false after the timeout, the connection stays.
        var_dump($c->push('quiet'));
        $t = microtime(true);
        var_dump($c->recv(0.2), $c->errCode, $c->connected);
        $el = microtime(true) - $t;
        rsw_check('recv waited ~0.2 s', $el > 0.15 && $el < 1.0, $el);
        var_dump($c->push('still here'), $c->recv()->data);

        // The server closes: recv() answers '' and the client is closed.
        var_dump($c->push('bye'), $c->recv(), $c->connected);
        var_dump($c->push('x'), $c->errCode, $c->recv());

        // With open_websocket_close_frame the close frame itself comes back.
        $d = new Co\Http\Client('127.0.0.1', $port);
        $d->set(['open_websocket_close_frame' => true, 'open_websocket_pong_frame' => true]);
        var_dump($d->upgrade('/two'), $d->recv()->data);
        var_dump($d->ping('p'));
        $pong = $d->recv();
        var_dump($pong->opcode, $pong->data);
        $d->push('bye');
        $cf = $d->recv();
        var_dump(get_class($cf), $cf->opcode, $cf->code, $cf->reason);

        // The client closes.
        $e = new Co\Http\Client('127.0.0.1', $port);
        var_dump($e->upgrade('/three'), $e->recv()->data, $e->disconnect(1000, 'done'), $e->connected);
    });
});
?>
--EXPECT--
bool(true)
int(101)
string(9) "websocket"
bool(true)
string(22) "Swoole\WebSocket\Frame"
string(11) "welcome /ws"
int(1)
bool(true)
bool(true)
bool(true)
string(5) "HELLO"
bool(true)
int(2)
int(70000)
bool(true)
bool(true)
string(12) "FROM A FRAME"
bool(true)
bool(false)
int(110)
bool(true)
recv waited ~0.2 s: OK
bool(true)
string(10) "STILL HERE"
bool(true)
string(0) ""
bool(false)
bool(false)
int(5001)
bool(false)
bool(true)
string(12) "welcome /two"
bool(true)
int(10)
string(1) "p"
string(27) "Swoole\WebSocket\CloseFrame"
int(8)
int(4000)
string(7) "see you"
bool(true)
string(14) "welcome /three"
bool(true)
bool(false)
