--TEST--
swoole_http_client_coro: push() of a Frame object takes FIN from its finish property (a message in three fragments, two of them Frame objects with finish = false, arrives whole)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('message', function ($s, $frame) {
        $s->push($frame->fd, "got {$frame->opcode} {$frame->data}");
    });
    $s->start();
}, function (int $port) {
    Co\run(function () use ($port) {
        $cli = new Swoole\Coroutine\Http\Client('127.0.0.1', $port);
        $cli->set(['timeout' => 5]);
        var_dump($cli->upgrade('/'));
        $f = new Swoole\WebSocket\Frame;
        $f->opcode = WEBSOCKET_OPCODE_TEXT;
        $f->data = 'one,';
        $f->finish = false;
        var_dump($cli->push($f));
        $f = new Swoole\WebSocket\Frame;
        $f->opcode = WEBSOCKET_OPCODE_CONTINUATION;
        $f->data = 'two,';
        $f->finish = false;
        var_dump($cli->push($f));
        var_dump($cli->push('three', WEBSOCKET_OPCODE_CONTINUATION, true));
        $r = $cli->recv();
        var_dump($r instanceof Swoole\WebSocket\Frame ? $r->data : $r);
        $cli->close();
    });
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
string(19) "got 1 one,two,three"
