--TEST--
swoole_websocket_server: handshake (Sec-WebSocket-* spelled as Swoole does), open with the request, echo, push from open, close event; plain HTTP on the same port
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

function ws_frame(int $op, string $data): string
{
    $mask = random_bytes(4);
    $n = strlen($data);
    $head = chr(0x80 | $op) . ($n < 126 ? chr(0x80 | $n) : chr(0x80 | 126) . pack('n', $n));
    $masked = '';
    for ($i = 0; $i < $n; $i++) {
        $masked .= $data[$i] ^ $mask[$i & 3];
    }
    return $head . $mask . $masked;
}

function ws_read($s): array
{
    $h = fread($s, 2);
    $n = ord($h[1]) & 0x7f;
    if ($n === 126) {
        $n = unpack('n', fread($s, 2))[1];
    }
    $data = '';
    while (strlen($data) < $n) {
        $data .= fread($s, $n - strlen($data));
    }
    return [ord($h[0]) & 0x0f, $data];
}

rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('open', function ($s, $req) {
        $s->push($req->fd, 'open ' . get_class($req) . ' ' . $req->server['request_uri']);
    });
    $s->on('message', function ($s, $frame) {
        $s->push($frame->fd, strtoupper($frame->data));
    });
    $s->on('request', function ($req, $resp) {
        $resp->end('http ok');
    });
    $s->on('close', function ($s, $fd, $reactorId) {
        echo "close\n";
    });
    $s->start();
}, function (int $port) {
    $s = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 5);
    stream_set_timeout($s, 5);
    $key = base64_encode(random_bytes(16));
    fwrite($s, "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        . "Sec-WebSocket-Key: $key\r\nSec-WebSocket-Version: 13\r\n\r\n");
    $head = '';
    while (!str_contains($head, "\r\n\r\n")) {
        $head .= fread($s, 1);
    }
    echo strtok($head, "\r\n"), "\n";
    $accept = base64_encode(sha1($key . '258EAFA5-E914-47DA-95CA-C5AB0DC85B11', true));
    // Swoole's spelling of the names (clients that match them with their case find them).
    var_dump(str_contains($head, "\r\nSec-WebSocket-Accept: $accept\r\n"), str_contains($head, "\r\nSec-WebSocket-Version: 13\r\n"));
    var_dump(ws_read($s));
    fwrite($s, ws_frame(1, 'hello'));
    var_dump(ws_read($s));
    fwrite($s, ws_frame(8, pack('n', 1000)));
    [$op, $data] = ws_read($s);
    var_dump($op, unpack('n', $data)[1]);
    fclose($s);
    echo rsw_http_get($port, '/')[2], "\n";
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
HTTP/1.1 101 Switching Protocols
bool(true)
bool(true)
array(2) {
  [0]=>
  int(1)
  [1]=>
  string(28) "open Swoole\Http\Request /ws"
}
array(2) {
  [0]=>
  int(1)
  [1]=>
  string(5) "HELLO"
}
int(8)
int(1000)
http ok
