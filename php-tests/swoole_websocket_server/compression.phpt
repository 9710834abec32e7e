--TEST--
swoole_websocket_server: websocket_compression negotiates permessage-deflate; compressed frames both ways (RSV1); none without the offer; send() of a packed frame; ping()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/websocket.php';

rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING, 'websocket_compression' => true,
             'package_max_length' => 100000]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('message', function ($s, $frame) {
        if ($frame->data === 'ping') {
            $ok = $s->ping($frame->fd, 'pp');
            $bad = @$s->ping(999999);
            $s->push($frame->fd, json_encode([$ok, $bad]));
            return;
        }
        if ($frame->data === 'raw') {
            $s->send($frame->fd, Swoole\WebSocket\Server::pack('raw reply', WEBSOCKET_OPCODE_TEXT));
            return;
        }
        $compressed = ($frame->flags & SWOOLE_WEBSOCKET_FLAG_COMPRESS) ? 'compressed' : 'plain';
        $s->push($frame->fd, "$compressed " . strlen($frame->data) . ' ' . md5($frame->data),
            WEBSOCKET_OPCODE_TEXT, SWOOLE_WEBSOCKET_FLAG_FIN | SWOOLE_WEBSOCKET_FLAG_COMPRESS);
    });
    $s->start();
}, function (int $port) {
    $big = str_repeat('abcdefgh', 5000);
    [$c, $head] = rsw_ws_connect($port, '/', "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n");
    preg_match('/^Sec-WebSocket-Extensions: (.*)\r$/mi', $head, $m);
    echo $m[1] ?? 'no extension', "\n";
    // A compressed client message (RSV1 + FIN + text) is inflated for onMessage.
    fwrite($c, rsw_ws_frame(0xc1, rsw_ws_deflate($big)));
    [$b0, $data] = rsw_ws_read($c);
    printf("%02x %s\n", $b0, rsw_ws_inflate($data) === 'compressed 40000 ' . md5($big) ? 'ok' : 'bad');
    // An uncompressed one still works.
    fwrite($c, rsw_ws_frame(0x81, 'x'));
    [$b0, $data] = rsw_ws_read($c);
    printf("%02x %s\n", $b0, rsw_ws_inflate($data));
    // send() writes raw bytes: here a packed frame.
    fwrite($c, rsw_ws_frame(0x81, 'raw'));
    var_dump(rsw_ws_read($c));
    // ping() sends a ping frame (never compressed).
    fwrite($c, rsw_ws_frame(0x81, 'ping'));
    [$b0, $data] = rsw_ws_read($c);
    printf("%02x %s\n", $b0, $data);
    [$b0, $data] = rsw_ws_read($c);
    printf("%02x %s\n", $b0, rsw_ws_inflate($data));
    // A message that inflates past package_max_length: 1009.
    fwrite($c, rsw_ws_frame(0xc2, rsw_ws_deflate(str_repeat("\0", 200000))));
    [$b0, $data] = rsw_ws_read($c);
    var_dump($b0, unpack('n', $data)[1]);
    fclose($c);

    // No offer: nothing negotiated, FLAG_COMPRESS is ignored, and RSV1 from the client is a protocol error.
    [$c, $head] = rsw_ws_connect($port, '/');
    var_dump(stripos($head, 'Sec-WebSocket-Extensions') === false);
    fwrite($c, rsw_ws_frame(0x81, 'y'));
    [$b0, $data] = rsw_ws_read($c);
    printf("%02x %s\n", $b0, $data);
    fwrite($c, rsw_ws_frame(0xc1, rsw_ws_deflate('z')));
    [$b0, $data] = rsw_ws_read($c);
    var_dump($b0, unpack('n', $data)[1]);
    fclose($c);
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
permessage-deflate; client_no_context_takeover; server_no_context_takeover
c1 ok
c1 plain 1 9dd4e461268c8034f5c8564e155c67a6
array(2) {
  [0]=>
  int(129)
  [1]=>
  string(9) "raw reply"
}
89 pp
c1 [true,false]
int(136)
int(1009)
bool(true)
81 plain 1 415290769594460e2e485922904f345d
int(136)
int(1002)
