<?php
// A raw-socket RFC 6455 client for the WebSocket phpt tests: handshake, masked frames, frame reads.

/** Connects and sends an upgrade request; returns [$socket, $responseHead]. */
function rsw_ws_connect(int $port, string $path = '/', string $extraHeaders = ''): array
{
    $s = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 5);
    if ($s === false) {
        throw new RuntimeException("connect: $errstr");
    }
    stream_set_timeout($s, 5);
    $key = base64_encode(random_bytes(16));
    fwrite($s, "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        . "Sec-WebSocket-Key: $key\r\nSec-WebSocket-Version: 13\r\n$extraHeaders\r\n");
    $head = '';
    while (!str_contains($head, "\r\n\r\n")) {
        $c = fread($s, 1);
        if ($c === '' || $c === false) {
            break;
        }
        $head .= $c;
    }
    return [$s, $head];
}

/** A masked client frame; $b0 is the whole first byte (FIN, RSV bits, opcode). */
function rsw_ws_frame(int $b0, string $data): string
{
    $mask = random_bytes(4);
    $n = strlen($data);
    $len = $n < 126 ? chr(0x80 | $n) : ($n < 65536 ? chr(0x80 | 126) . pack('n', $n) : chr(0x80 | 127) . pack('J', $n));
    $masked = '';
    for ($i = 0; $i < $n; $i++) {
        $masked .= $data[$i] ^ $mask[$i & 3];
    }
    return chr($b0) . $len . $mask . $masked;
}

/** Reads one server frame: [first byte, payload], or null on EOF/timeout. */
function rsw_ws_read($s): ?array
{
    $h = fread($s, 2);
    if (!is_string($h) || strlen($h) < 2) {
        return null;
    }
    $n = ord($h[1]) & 0x7f;
    if ($n === 126) {
        $n = unpack('n', fread($s, 2))[1];
    } elseif ($n === 127) {
        $n = unpack('J', fread($s, 8))[1];
    }
    $data = '';
    while (strlen($data) < $n) {
        $chunk = fread($s, $n - strlen($data));
        if ($chunk === '' || $chunk === false) {
            return null;
        }
        $data .= $chunk;
    }
    return [ord($h[0]), $data];
}

/** Raw deflate of one message as permessage-deflate sends it (trailing 00 00 ff ff removed). */
function rsw_ws_deflate(string $data): string
{
    $ctx = deflate_init(ZLIB_ENCODING_RAW);
    $out = deflate_add($ctx, $data, ZLIB_SYNC_FLUSH);
    return substr($out, 0, -4);
}

/** Inflates one permessage-deflate message. */
function rsw_ws_inflate(string $data): string|false
{
    $ctx = inflate_init(ZLIB_ENCODING_RAW);
    return inflate_add($ctx, $data . "\x00\x00\xff\xff", ZLIB_SYNC_FLUSH);
}

/** Waits until $file has at least $n lines (bounded); returns its lines. */
function rsw_wait_lines(string $file, int $n, float $timeout = 5.0): array
{
    rsw_wait_until(static function () use ($file, $n) {
        clearstatcache();
        return is_file($file) && count(file($file, FILE_IGNORE_NEW_LINES)) >= $n;
    }, $timeout);
    clearstatcache();
    return is_file($file) ? file($file, FILE_IGNORE_NEW_LINES) : [];
}
