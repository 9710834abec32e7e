--TEST--
swoole_websocket_server: disconnect fires for connections that never became WebSocket ones (plain HTTP, refused handshake); close for WebSocket ones
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/websocket.php';

$log = tempnam(sys_get_temp_dir(), 'rsw_ws_dc_');
rsw_run_server(static function (int $port, callable $ready, string $host) use ($log): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('open', function ($s, $req) use ($log) {
        file_put_contents($log, "open\n", FILE_APPEND);
    });
    $s->on('message', function ($s, $frame) {
        if ($frame->data === 'bye') {
            $s->disconnect($frame->fd, 4000, 'bye');
        }
    });
    $s->on('request', function ($req, $resp) {
        $resp->end('http');
    });
    $s->on('close', function ($s, $fd, $reactorId) use ($log) {
        file_put_contents($log, "close\n", FILE_APPEND);
    });
    $s->on('disconnect', function ($s, $fd, $reactorId) use ($log) {
        file_put_contents($log, 'disconnect ' . gettype($fd) . ' ' . gettype($reactorId) . "\n", FILE_APPEND);
    });
    $s->start();
}, function (int $port) use ($log) {
    // 1. A plain HTTP request, connection closed after it: disconnect.
    echo rsw_http_get($port, '/', ['Connection' => 'close'])[2], "\n";
    echo implode("\n", rsw_wait_lines($log, 1)), "\n";
    // 2. A WebSocket connection the client closes: open, then close.
    [$c] = rsw_ws_connect($port, '/');
    fwrite($c, rsw_ws_frame(0x88, pack('n', 1000)));
    rsw_ws_read($c);
    fclose($c);
    echo implode("\n", array_slice(rsw_wait_lines($log, 3), 1)), "\n";
    // 3. A WebSocket connection the server disconnects: close too.
    [$c] = rsw_ws_connect($port, '/');
    fwrite($c, rsw_ws_frame(0x81, 'bye'));
    [$b0, $data] = rsw_ws_read($c);
    var_dump($b0 & 0x0f, unpack('n', $data)[1], substr($data, 2));
    fclose($c);
    echo implode("\n", array_slice(rsw_wait_lines($log, 5), 3)), "\n";
    usleep(200000);
    var_dump(count(file($log)));
}, 10, ['ready_count' => 1, 'wait_port' => false]);
@unlink($log);
?>
--EXPECT--
http
disconnect integer integer
open
close
int(8)
int(4000)
string(3) "bye"
open
close
int(5)
