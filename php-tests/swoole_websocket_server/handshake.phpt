--TEST--
swoole_websocket_server: a handshake callback answers the upgrade; 101 makes a WebSocket connection (open not fired), anything else is refused and closed
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/websocket.php';

$log = tempnam(sys_get_temp_dir(), 'rsw_ws_hs_');
rsw_run_server(static function (int $port, callable $ready, string $host) use ($log): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('handshake', function (Swoole\Http\Request $req, Swoole\Http\Response $resp) use ($s, $log) {
        file_put_contents($log, "handshake {$req->server['request_uri']} {$req->fd}\n", FILE_APPEND);
        if ($req->server['request_uri'] !== '/ok') {
            $resp->status(403);
            $resp->end('no');
            return false;
        }
        $key = base64_encode(sha1($req->header['sec-websocket-key'] . '258EAFA5-E914-47DA-95CA-C5AB0DC85B11', true));
        foreach (['Upgrade' => 'websocket', 'Connection' => 'Upgrade', 'Sec-WebSocket-Accept' => $key,
                  'Sec-WebSocket-Version' => '13', 'X-Custom' => 'yes'] as $k => $v) {
            $resp->header($k, $v);
        }
        $resp->status(101);
        $resp->end();
        // A push right after the 101 reaches the client first.
        $s->push($req->fd, 'welcome ' . $req->fd);
        return true;
    });
    $s->on('open', function ($s, $req) use ($log) {
        file_put_contents($log, "open must not fire\n", FILE_APPEND);
    });
    $s->on('disconnect', function ($s, $fd) use ($log) {
        file_put_contents($log, "disconnect $fd\n", FILE_APPEND);
    });
    $s->on('message', function ($s, $frame) {
        $s->push($frame->fd, 'echo ' . $frame->data . ' ' . json_encode($s->isEstablished($frame->fd)));
    });
    $s->start();
}, function (int $port) use ($log) {
    [$c, $head] = rsw_ws_connect($port, '/ok');
    echo strtok($head, "\r\n"), "\n";
    var_dump(stripos($head, "X-Custom: yes\r\n") !== false);
    [$b0, $data] = rsw_ws_read($c);
    var_dump(preg_match('/^welcome \d+$/', $data) === 1);
    fwrite($c, rsw_ws_frame(0x81, 'hi'));
    var_dump(rsw_ws_read($c)[1]);

    [$r, $head] = rsw_ws_connect($port, '/no');
    echo strtok($head, "\r\n"), "\n";
    var_dump(stripos($head, "Connection: close\r\n") !== false);
    // The refused connection is closed by the server after the body.
    stream_set_timeout($r, 3);
    $rest = '';
    while (!feof($r) && ($chunk = fread($r, 100)) !== false && $chunk !== '') {
        $rest .= $chunk;
    }
    var_dump($rest, feof($r));
    fclose($r);
    fclose($c);
    // The refused connection fires disconnect with the fd its handshake had.
    $lines = rsw_wait_lines($log, 3);
    echo preg_replace('/ \d+$/m', '', implode("\n", $lines)), "\n";
    var_dump(explode(' ', $lines[1])[2] === explode(' ', $lines[2] ?? '')[1]);
}, 10, ['ready_count' => 1, 'wait_port' => false]);
@unlink($log);
?>
--EXPECT--
HTTP/1.1 101 Switching Protocols
bool(true)
bool(true)
string(12) "echo hi true"
HTTP/1.1 403 Forbidden
bool(true)
string(2) "no"
bool(true)
handshake /ok
handshake /no
disconnect
bool(true)
