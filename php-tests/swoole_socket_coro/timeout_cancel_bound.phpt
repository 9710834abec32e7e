--TEST--
swoole_socket_coro: per-call and SO_RCVTIMEO timeouts give SOCKET_ETIMEDOUT on time, cancel() gives SOCKET_ECANCELED, a second reader gets the bound error
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Socket;
Co\run(function () {
    $srv = new Socket(AF_INET, SOCK_STREAM, 0);
    $srv->bind('127.0.0.1', 0);
    $srv->listen();
    $port = $srv->getsockname()['port'];
    go(function () use ($srv) { $c = $srv->accept(); Co::sleep(1); });
    $cli = new Socket(AF_INET, SOCK_STREAM, 0);
    var_dump($cli->connect('127.0.0.1', $port));
    $t = microtime(true);
    var_dump($cli->recv(10, 0.2), $cli->errCode === SOCKET_ETIMEDOUT, $cli->errMsg);
    $el = microtime(true) - $t;
    var_dump($el >= 0.18 && $el < 0.5);
    var_dump($cli->setOption(SOL_SOCKET, SO_RCVTIMEO, ['sec' => 0, 'usec' => 100000]));
    var_dump($cli->getOption(SOL_SOCKET, SO_RCVTIMEO));
    $t = microtime(true);
    var_dump($cli->recv(), $cli->errCode === SOCKET_ETIMEDOUT, microtime(true) - $t < 0.4);
    $cli->setOption(SOL_SOCKET, SO_RCVTIMEO, ['sec' => 5, 'usec' => 0]);
    // cancel a waiting reader from another coroutine
    go(function () use ($cli) {
        Co::sleep(0.05);
        var_dump($cli->getBoundCid(SWOOLE_EVENT_READ) > 0);
        try {
            $cli->recv();
        } catch (Swoole\Error $e) {
            echo preg_replace('/#\d+/', '#N', $e->getMessage()), "\n";
            var_dump($e->getCode() === SWOOLE_ERROR_CO_HAS_BEEN_BOUND);
        }
        var_dump($cli->cancel());
    });
    $t = microtime(true);
    var_dump($cli->recv(), $cli->errCode === SOCKET_ECANCELED, microtime(true) - $t < 1);
    var_dump($cli->cancel());
});
try {
    (new Socket(AF_INET, SOCK_STREAM, 0))->connect('127.0.0.1', 1);
} catch (Swoole\Error $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
?>
--EXPECT--
bool(true)
bool(false)
bool(true)
string(20) "Connection timed out"
bool(true)
bool(true)
array(2) {
  ["sec"]=>
  int(0)
  ["usec"]=>
  int(100000)
}
bool(false)
bool(true)
bool(true)
bool(true)
Socket#N has already been bound to another coroutine#N, reading of the same socket in coroutine#N at the same time is not allowed
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(false)
Swoole\Error: API must be called in the coroutine
