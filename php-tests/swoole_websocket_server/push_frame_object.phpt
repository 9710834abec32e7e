--TEST--
swoole_websocket_server: push() takes a Frame object (its opcode, flags, finish and data), a CloseFrame, and scalars cast to strings
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

function ws_frame(int $op, string $data): string
{
    $mask = random_bytes(4);
    $n = strlen($data);
    $masked = '';
    for ($i = 0; $i < $n; $i++) {
        $masked .= $data[$i] ^ $mask[$i & 3];
    }
    return chr(0x80 | $op) . chr(0x80 | $n) . $mask . $masked;
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
    return [ord($h[0]) >> 7, ord($h[0]) & 0x0f, $data];
}

rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('message', function ($s, $frame) {
        // The frame it got, sent back as it is.
        $r1 = $s->push($frame->fd, $frame);
        // A frame built by hand: binary, not final, then its continuation.
        $f = new Swoole\WebSocket\Frame();
        $f->opcode = WEBSOCKET_OPCODE_BINARY;
        $f->data = 'part1';
        $f->finish = false;
        $r2 = $s->push($frame->fd, $f);
        $g = new Swoole\WebSocket\Frame();
        $g->opcode = WEBSOCKET_OPCODE_CONTINUATION;
        $g->data = 'part2';
        $r3 = $s->push($frame->fd, $g);
        // Scalars are cast.
        $r4 = $s->push($frame->fd, 123);
        $r5 = $s->push($frame->fd, 1.5);
        $s->push($frame->fd, json_encode([$r1, $r2, $r3, $r4, $r5]));
        $c = new Swoole\WebSocket\CloseFrame();
        $c->code = 4001;
        $c->reason = 'bye';
        $s->push($frame->fd, $c);
    });
    $s->start();
}, function (int $port) {
    $s = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 5);
    stream_set_timeout($s, 5);
    $key = base64_encode(random_bytes(16));
    fwrite($s, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        . "Sec-WebSocket-Key: $key\r\nSec-WebSocket-Version: 13\r\n\r\n");
    $head = '';
    while (!str_contains($head, "\r\n\r\n")) {
        $head .= fread($s, 1);
    }
    fwrite($s, ws_frame(1, 'hello'));
    for ($i = 0; $i < 7; $i++) {
        [$fin, $op, $data] = ws_read($s);
        if ($op === 8) {
            $data = unpack('n', $data)[1] . ' ' . substr($data, 2);
        }
        echo "$fin $op $data\n";
    }
    fclose($s);
});
?>
--EXPECT--
1 1 hello
0 2 part1
1 0 part2
1 1 123
1 1 1.5
1 1 [true,true,true,true,true]
1 8 4001 bye
