--TEST--
swoole_http_client_coro: a WebSocket server that breaks the fragment rules (a new data frame inside a fragmented message, a continuation with no initial frame) makes recv() fail and logs Swoole's websocket::recv_frame() warning; a correct fragmented message is joined
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

/** An unmasked server frame. */
function frame(int $opcode, bool $fin, string $data): string
{
    $len = strlen($data);
    $head = chr(($fin ? 0x80 : 0) | $opcode);
    if ($len < 126) {
        $head .= chr($len);
    } else {
        $head .= chr(126) . pack('n', $len);
    }
    return $head . $data;
}

$cases = [
    'joined' => frame(1, false, 'ab') . frame(0, false, 'cd') . frame(0, true, 'ef'),
    'new data frame inside a fragmented message' => frame(1, false, 'ab') . frame(0, false, 'cd') . frame(1, false, 'xx') . frame(0, true, 'ef'),
    'lone continuation' => frame(0, false, 'cd') . frame(0, true, 'ef'),
];

Co\run(function () use ($cases) {
    $server = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
    $port = (int) explode(':', stream_socket_get_name($server, false))[1];
    go(function () use ($server, $cases) {
        foreach ($cases as $bytes) {
            $conn = stream_socket_accept($server, 5);
            $head = '';
            while (!str_contains($head, "\r\n\r\n")) {
                $head .= fread($conn, 4096);
            }
            preg_match('/Sec-WebSocket-Key: (\S+)/i', $head, $m);
            $accept = base64_encode(sha1($m[1] . '258EAFA5-E914-47DA-95CA-C5AB0DC85B11', true));
            fwrite($conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: $accept\r\n\r\n" . $bytes);
            Co::sleep(0.3);
            fclose($conn);
        }
    });
    foreach ($cases as $name => $bytes) {
        $c = new Swoole\Coroutine\Http\Client('127.0.0.1', $port);
        $c->set(['timeout' => 3]);
        if (!$c->upgrade('/')) {
            rsw_check("$name: upgrade", false, [$c->errCode, $c->errMsg]);
            continue;
        }
        $f = $c->recv(2);
        echo "$name: ", $f instanceof Swoole\WebSocket\Frame ? "frame {$f->opcode} {$f->data}" : 'recv ' . var_export($f, true), "\n";
        $c->close();
    }
});
?>
--EXPECTF--
joined: frame 1 abcdef
%sWARNING	websocket::recv_frame(): All fragments of a message, except for the initial frame, must use the continuation frame opcode(0).
new data frame inside a fragmented message: recv false
%sWARNING	websocket::recv_frame(): A continuation frame cannot stand alone and MUST be preceded by an initial frame whose opcode indicates either text or binary data.
lone continuation: recv false
