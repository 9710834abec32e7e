--TEST--
swoole_http_client_coro: connection refused (-1/111), timeout (-2/110), reset (-3/104), outside a coroutine, bad constructor arguments, an ssl client is made
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

try {
    (new Swoole\Coroutine\Http\Client('127.0.0.1', 1))->get('/');
} catch (Swoole\Error $e) {
    echo get_class($e), ' ', $e->getCode(), ': ', $e->getMessage(), "\n";
}
foreach ([['', 80, false], ['127.0.0.1', 70000, false], ['127.0.0.1', 443, true]] as [$h, $p, $ssl]) {
    try {
        new Co\Http\Client($h, $p, $ssl);
    } catch (Swoole\Exception $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
$w = new Co\Http\Client('127.0.0.1', 1);
var_dump($w->set(['socks5_host' => '10.0.0.1', 'websocket_mask' => false]), $w->setting['websocket_mask'], $w->set([]));

$dead = rsw_free_port();
// A raw server: /slow never answers, /cut sends half a response and closes.
rsw_run_server(static function (int $port): void {
    $srv = stream_socket_server("tcp://127.0.0.1:$port");
    $held = [];
    while ($conn = @stream_socket_accept($srv, 30)) {
        $req = fread($conn, 8192);
        if (str_contains($req, 'GET /cut')) {
            fwrite($conn, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this");
            fclose($conn);
        } else {
            $held[] = $conn;
        }
    }
}, function (int $port) use ($dead) {
    Co\run(function () use ($port, $dead) {
        $c = new Co\Http\Client('127.0.0.1', $dead);
        var_dump($c->get('/'), $c->statusCode, $c->errCode, $c->errMsg, $c->connected);
        var_dump($c->statusCode === SWOOLE_HTTP_CLIENT_ESTATUS_CONNECT_FAILED);

        $c = new Co\Http\Client('127.0.0.1', $port);
        $c->set(['timeout' => 0.3]);
        $t = microtime(true);
        var_dump($c->get('/slow'), $c->statusCode, $c->errCode, $c->errMsg, $c->connected);
        $el = microtime(true) - $t;
        rsw_check('timed out after ~0.3 s', $el > 0.25 && $el < 1.0, $el);
        var_dump($c->statusCode === SWOOLE_HTTP_CLIENT_ESTATUS_REQUEST_TIMEOUT);

        $c = new Co\Http\Client('127.0.0.1', $port);
        var_dump($c->get('/cut'), $c->statusCode, $c->errCode, $c->errMsg);
        var_dump($c->statusCode === SWOOLE_HTTP_CLIENT_ESTATUS_SERVER_RESET);
        // recv() without a pending request or a WebSocket.
        var_dump($c->recv(), $c->errCode);
        var_dump($c->getsockname(), $c->push('x'));
    });
});
?>
--EXPECTF--
Swoole\Error 10001: API must be called in the coroutine
Swoole\Coroutine\Http\Client\Exception: host is empty
Swoole\Coroutine\Http\Client\Exception: The port is invalid

Warning: Swoole\Coroutine\Http\Client::set(): option 'socks5_host' is not supported by rswoole and is ignored in %s on line %d
bool(true)
bool(false)
bool(false)
bool(false)
int(-1)
int(111)
string(18) "Connection refused"
bool(false)
bool(true)
bool(false)
int(-2)
int(110)
string(20) "Connection timed out"
bool(false)
timed out after ~0.3 s: OK
bool(true)
bool(false)
int(-3)
int(104)
string(24) "Connection reset by peer"
bool(true)
bool(false)
int(5001)
bool(false)
bool(false)
