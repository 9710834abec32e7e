--TEST--
swoole_http_client_coro: $socket is the connection as a Coroutine\Socket (null without one): recvLine() after an event-stream response (which ends with its head), sendAll() of raw frame bytes after an upgrade, close() on it leaves the client without a connection
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

// A raw server, one connection at a time.
rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $srv = stream_socket_server("tcp://$host:$port", $errno, $errstr);
    $ready();
    while ($c = @stream_socket_accept($srv, 30)) {
        $req = '';
        while (!str_contains($req, "\r\n\r\n") && ($d = fread($c, 4096)) !== false && $d !== '') {
            $req .= $d;
        }
        if (str_starts_with($req, 'GET /sse')) {
            fwrite($c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: keep-alive\r\n\r\n");
            usleep(100000);
            fwrite($c, "data: one\n\ndata: two\n\n");
        } elseif (str_starts_with($req, 'GET /ws')) {
            // Swoole's client does not check Sec-WebSocket-Accept.
            fwrite($c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: not-checked\r\n\r\n");
            $raw = '';
            while (strlen($raw) < 8 && ($d = fread($c, 8 - strlen($raw))) !== false && $d !== '') {
                $raw .= $d;
            }
            $back = 'got ' . bin2hex($raw);
            fwrite($c, "\x81" . chr(strlen($back)) . $back);
        } else {
            fwrite($c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        }
        while (($d = fread($c, 4096)) !== false && $d !== '') {
        }
        fclose($c);
    }
}, function (int $port) {
    Co\run(function () use ($port) {
        $c = new Co\Http\Client('127.0.0.1', $port);
        $c->set(['timeout' => 3]);
        var_dump($c->socket);
        var_dump($c->get('/sse'), $c->body, $c->headers['content-type']);
        $s = $c->socket;
        var_dump($s instanceof Swoole\Coroutine\Socket, $s === $c->socket, $s->fd > 0);
        var_dump($s->recvLine(), $s->recvLine(), $s->recvLine());
        var_dump($c->close(), $c->socket, $s->isClosed(), $c->close());

        $c = new Co\Http\Client('127.0.0.1', $port);
        $c->set(['timeout' => 3]);
        var_dump($c->upgrade('/ws'), $c->statusCode);
        // A masked text frame "hi" (mask 0), in two writes.
        var_dump($c->socket->sendAll("\x81\x82"), $c->socket->sendAll("\0\0\0\0hi"));
        var_dump($c->recv()->data);
        var_dump($c->socket->close(), $c->socket, $c->connected);
        var_dump($c->recv(), $c->errCode);
        var_dump($c->push('x'), $c->errCode, $c->close());
        // A new request connects again.
        var_dump($c->get('/plain'), $c->body, $c->socket instanceof Swoole\Coroutine\Socket);
    });
}, 10, ['ready_count' => 1, 'wait_port' => false]);
?>
--EXPECT--
NULL
bool(true)
string(0) ""
string(17) "text/event-stream"
bool(true)
bool(true)
bool(true)
string(10) "data: one
"
string(1) "
"
string(10) "data: two
"
bool(true)
NULL
bool(true)
bool(false)
bool(true)
int(101)
int(2)
int(6)
string(20) "got 8182000000006869"
bool(true)
NULL
bool(false)
bool(false)
int(5001)
bool(false)
int(5001)
bool(false)
bool(true)
string(2) "ok"
bool(true)
