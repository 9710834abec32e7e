--TEST--
swoole_websocket_server: beforeHandshakeResponse adds headers and cookies to the default 101, then open fires
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/websocket.php';

rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('beforeHandshakeResponse', function (Swoole\WebSocket\Server $s, Swoole\Http\Request $req, Swoole\Http\Response $resp) {
        $resp->header('X-Before', 'fd' . $req->fd);
        $resp->cookie('session', 'abc');
        $resp->status(200); // ignored: it stays a 101
    });
    $s->on('open', function ($s, $req) {
        $s->push($req->fd, 'open fd' . $req->fd);
    });
    $s->on('message', function ($s, $frame) {
        $s->push($frame->fd, $frame->data);
    });
    $s->start();
}, function (int $port) {
    [$c, $head] = rsw_ws_connect($port, '/');
    echo strtok($head, "\r\n"), "\n";
    preg_match('/^X-Before: (\S+)\r$/mi', $head, $m);
    $fd = $m[1] ?? 'missing';
    var_dump(stripos($head, "Set-Cookie: session=abc") !== false);
    var_dump(rsw_ws_read($c)[1] === "open $fd");
    fwrite($c, rsw_ws_frame(0x81, 'echo'));
    var_dump(rsw_ws_read($c)[1]);
    fclose($c);
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
HTTP/1.1 101 Switching Protocols
bool(true)
bool(true)
string(4) "echo"
