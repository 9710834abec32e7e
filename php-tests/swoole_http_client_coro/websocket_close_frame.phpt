--TEST--
swoole_http_client_coro: recv() of a server's close frame with open_websocket_close_frame reads as Swoole 6.2.2 reads it (no code: WEBSOCKET_CLOSE_NORMAL); without it the frame is echoed and recv() returns ''
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/websocket.php';

// A raw server: answers the upgrade, sends the close frame the path names,
// and logs the first bytes the client sends back.
$log = tempnam(sys_get_temp_dir(), 'rsw_wscc_');
$payloads = ['empty' => '', 'one' => "\x03", 'ok' => "\x03\xe8ok", 'c4001' => "\x0f\xa1why"];
rsw_run_server(static function (int $port, callable $ready, string $host) use ($log, $payloads): void {
    $srv = stream_socket_server("tcp://$host:$port", $errno, $errstr);
    $ready();
    while ($c = @stream_socket_accept($srv, 30)) {
        $req = '';
        while (!str_contains($req, "\r\n\r\n") && ($d = fread($c, 4096)) !== false && $d !== '') {
            $req .= $d;
        }
        if (!preg_match('~GET /(\w+)~', $req, $p)) {
            fclose($c);
            continue;
        }
        preg_match('/Sec-WebSocket-Key: (\S+)/i', $req, $k);
        $accept = base64_encode(sha1($k[1] . '258EAFA5-E914-47DA-95CA-C5AB0DC85B11', true));
        fwrite($c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: $accept\r\n\r\n");
        $payload = $payloads[$p[1]];
        fwrite($c, "\x88" . chr(strlen($payload)) . $payload);
        stream_set_timeout($c, 0, 300000);
        $back = (string)fread($c, 2);
        file_put_contents($log, "$p[1] " . bin2hex($back) . "\n", FILE_APPEND);
        fclose($c);
    }
}, function (int $port) use ($log, $payloads) {
    Co\run(function () use ($port, $payloads) {
        foreach ([true, false] as $open) {
            foreach (array_keys($payloads) as $name) {
                $c = new Co\Http\Client('127.0.0.1', $port);
                $c->set(['timeout' => 3, 'open_websocket_close_frame' => $open]);
                $c->upgrade("/$name");
                $f = $c->recv();
                echo $open ? 'open ' : 'plain', " $name: ", is_object($f)
                    ? sprintf('%s opcode=%d flags=%d code=%d reason=%s', get_class($f), $f->opcode, $f->flags, $f->code, bin2hex($f->reason))
                    : var_export($f, true), "\n";
                $c->close();
            }
        }
    });
    // Without open_websocket_close_frame the client answered each close frame.
    $lines = rsw_wait_lines($log, 8);
    echo implode("\n", array_slice($lines, 4)), "\n";
}, 10, ['ready_count' => 1, 'wait_port' => false]);
@unlink($log);
?>
--EXPECT--
open  empty: Swoole\WebSocket\CloseFrame opcode=8 flags=1 code=1000 reason=
open  one: Swoole\WebSocket\CloseFrame opcode=8 flags=1 code=1000 reason=
open  ok: Swoole\WebSocket\CloseFrame opcode=8 flags=1 code=1000 reason=6f6b
open  c4001: Swoole\WebSocket\CloseFrame opcode=8 flags=1 code=4001 reason=776879
plain empty: ''
plain one: ''
plain ok: ''
plain c4001: ''
empty 8880
one 8881
ok 8884
c4001 8885
