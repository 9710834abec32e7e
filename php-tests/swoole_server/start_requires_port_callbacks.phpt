--TEST--
swoole_server: start() refuses a listen() port without the callback its kind needs (onPacket for UDP, onReceive for a TCP port that is not HTTP), the port's own or the server's
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
function attempt(callable $make): void
{
    $s = $make();
    try {
        $s->start();
        echo "started\n";
    } catch (Swoole\Exception $e) {
        echo $e->getMessage(), "\n";
    }
}
attempt(function () {
    $s = new Swoole\Server('127.0.0.1', 0, SWOOLE_BASE, SWOOLE_SOCK_UDP);
    $s->on('packet', function () {});
    $s->addlistener('127.0.0.1', 0, SWOOLE_SOCK_TCP);
    return $s;
});
attempt(function () {
    $s = new Swoole\Server('127.0.0.1', 0, SWOOLE_BASE, SWOOLE_SOCK_TCP);
    $s->on('receive', function () {});
    $s->addlistener('127.0.0.1', 0, SWOOLE_SOCK_UDP);
    return $s;
});
attempt(function () {
    $s = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_BASE);
    $s->on('request', function () {});
    $p = $s->addlistener('127.0.0.1', 0, SWOOLE_SOCK_TCP);
    $p->set(['open_http_protocol' => false]);
    return $s;
});
// The port's own callback is enough; this one starts and stops at once.
attempt(function () {
    $s = new Swoole\Server('127.0.0.1', 0, SWOOLE_BASE, SWOOLE_SOCK_UDP);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('packet', function () {});
    $s->on('workerStart', function ($s) { $s->shutdown(); });
    $p = $s->addlistener('127.0.0.1', 0, SWOOLE_SOCK_TCP);
    $p->on('receive', function () {});
    return $s;
});
?>
--EXPECT--
require onReceive callback
require onPacket callback
require onReceive callback
started
