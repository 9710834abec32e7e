--TEST--
swoole_http_client_coro: websocket_compression negotiates permessage-deflate with a compressing server; messages are compressed both ways
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'websocket_compression' => true, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('message', function ($s, $frame) {
        $compressed = ($frame->flags & SWOOLE_WEBSOCKET_FLAG_COMPRESS) ? 'compressed' : 'plain';
        $s->push($frame->fd, "$compressed " . strlen($frame->data) . ' ' . md5($frame->data));
        $s->push($frame->fd, $frame->data);
    });
    $s->start();
}, function (int $port) {
    Co\run(function () use ($port) {
        $msg = str_repeat('compress me please ', 5000);
        $c = new Co\Http\Client('127.0.0.1', $port);
        $c->set(['websocket_compression' => true]);
        var_dump($c->upgrade('/'), $c->headers['sec-websocket-extensions'] ?? null);
        var_dump(str_contains($c->getHeaderOut(), 'Sec-WebSocket-Extensions: permessage-deflate'));
        var_dump($c->push($msg));
        var_dump($c->recv()->data === 'compressed ' . strlen($msg) . ' ' . md5($msg));
        $f = $c->recv();
        var_dump($f->data === $msg, ($f->flags & SWOOLE_WEBSOCKET_FLAG_COMPRESS) !== 0, ($f->flags & SWOOLE_WEBSOCKET_FLAG_RSV1) !== 0);

        // Without the setting nothing is offered and everything stays plain.
        $p = new Co\Http\Client('127.0.0.1', $port);
        var_dump($p->upgrade('/'), $p->headers['sec-websocket-extensions'] ?? null);
        $p->push($msg);
        var_dump($p->recv()->data === 'plain ' . strlen($msg) . ' ' . md5($msg));
        $f = $p->recv();
        var_dump($f->data === $msg, $f->flags);
    });
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
bool(true)
string(74) "permessage-deflate; client_no_context_takeover; server_no_context_takeover"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
NULL
bool(true)
bool(true)
int(1)
