--TEST--
swoole_http_client_coro: a second coroutine reading the same client gets Swoole\Error "already been bound" naming where the first one waits
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
        Co::sleep(0.2);
        $s->push($frame->fd, 'late ' . $frame->data);
    });
    $s->on('request', function ($req, $resp) {
        Co::sleep(0.2);
        $resp->end('slow');
    });
    $s->start();
}, function (int $port) {
    Co\run(function () use ($port) {
        $c = new Co\Http\Client('127.0.0.1', $port);
        var_dump($c->upgrade('/'));
        $c->push('x');
        $line = __LINE__ + 1;
        go(function () use ($c) { $f = $c->recv(); echo 'first got: ', $f->data, "\n"; });
        try {
            $c->recv();
        } catch (Swoole\Error $e) {
            echo get_class($e), ' ', $e->getCode(), ': ', $e->getMessage(), "\n";
            var_dump(str_ends_with($e->getMessage(), '(coroutine#' . (Co::getCid() + 1) . ' is waiting in ' . __FILE__ . ":$line)"));
            var_dump(swoole_last_error() === SWOOLE_ERROR_CO_HAS_BEEN_BOUND);
        }
        Co::sleep(0.4);

        // The same for a request in flight.
        $h = new Co\Http\Client('127.0.0.1', $port);
        go(function () use ($h) { $h->get('/slow'); echo 'request got: ', $h->body, "\n"; });
        try {
            $h->get('/other');
        } catch (Swoole\Error $e) {
            echo $e->getMessage(), "\n";
        }
        Co::sleep(0.4);
        // Afterwards the client works from any coroutine.
        var_dump($h->get('/again'), $h->body);
    });
});
?>
--EXPECTF--
bool(true)
Swoole\Error 10002: Socket#%d has already been bound to another coroutine#%d, reading of the same socket in coroutine#%d at the same time is not allowed (coroutine#%d is waiting in %sbound_error.php:%d)
bool(true)
bool(true)
first got: late x
Socket#%d has already been bound to another coroutine#%d, reading of the same socket in coroutine#%d at the same time is not allowed (coroutine#%d is waiting in %sbound_error.php:%d)
request got: slow
bool(true)
string(4) "slow"
