--TEST--
swoole_websocket_server: a plain HTTP request to a WebSocket server without onRequest gets Swoole's 400 page and the connection is closed
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('message', function ($s, $frame) {});
    $s->start();
}, function (int $port) {
    $s = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 5);
    stream_set_timeout($s, 5);
    fwrite($s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    $all = stream_get_contents($s); // returns at EOF: the server closed
    [$head, $body] = explode("\r\n\r\n", $all, 2);
    echo strtok($head, "\r\n"), "\n";
    var_dump(stripos($head, "content-type: text/html; charset=UTF-8") !== false);
    echo $body, "\n";
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
HTTP/1.1 400 Bad Request
bool(true)
<html><body><h2>HTTP 400 Bad Request</h2><hr><i>Powered by Swoole</i></body></html>
