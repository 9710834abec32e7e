<?php
// WebSocket + HTTP server driven by tests/integration/test_hostile.py:
//   php -n -d extension=$RSWOOLE_SO hostile_server.php PORT [SETTINGS_JSON] [MODE]
// Routes: /echo (what the script sees of the request), /flood?n=&size= (write() n chunks of size
// bytes; results kept for /status), /status (JSON: the last flood's results, buffer events, RSS),
// /form (counts of post/files), anything else "hello". WebSocket message "flood N SIZE" pushes N
// messages of SIZE bytes to the sender; the results go to /status too. With TCP_PORT, a raw TCP
// port where the line "flood N SIZE" makes the server send() N blocks of SIZE bytes back.
//   php ... hostile_server.php PORT [SETTINGS_JSON] [MODE] [TCP_PORT]

$port = (int) ($argv[1] ?? 0);
$settings = json_decode($argv[2] ?? '{}', true) ?: [];
$mode = ($argv[3] ?? 'base') === 'process' ? SWOOLE_PROCESS : SWOOLE_BASE;
$srv = new Swoole\WebSocket\Server('127.0.0.1', $port, $mode);
$srv->set($settings + ['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);

function rss_kb(): int
{
    $s = @file_get_contents('/proc/self/status');
    return preg_match('/VmRSS:\s+(\d+)/', (string) $s, $m) ? (int) $m[1] : -1;
}

$GLOBALS['st'] = ['ok' => 0, 'fail' => 0, 'err' => 0, 'full' => 0, 'empty' => 0, 'done' => false];

/** Sends $n times with $send until it fails; the counts (and the error of the failure) go to /status. */
function flood(int $n, callable $send): void
{
    $GLOBALS['st'] = ['ok' => 0, 'fail' => 0, 'err' => 0, 'full' => 0, 'empty' => 0, 'done' => false];
    for ($i = 0; $i < $n; $i++) {
        if ($send()) {
            $GLOBALS['st']['ok']++;
        } else {
            $GLOBALS['st']['fail']++;
            $GLOBALS['st']['err'] = swoole_last_error();
            break;
        }
    }
    $GLOBALS['st']['done'] = true;
}

$srv->on('bufferFull', function ($s, $fd) { $GLOBALS['st']['full']++; });
$srv->on('bufferEmpty', function ($s, $fd) { $GLOBALS['st']['empty']++; });

$srv->on('request', function (Swoole\Http\Request $req, Swoole\Http\Response $resp) use ($srv) {
    switch ($req->server['request_uri']) {
        case '/echo':
            $resp->header('Content-Type', 'application/json');
            $resp->end(json_encode([
                'host' => $req->header['host'] ?? null,
                'raw' => var_export($req->rawContent(), true),
                'headers' => count($req->header ?? []),
                'pid' => getmypid(),
            ]));
            break;
        case '/form':
            $resp->end(json_encode([
                'post' => count($req->post ?? []),
                'files' => count($req->files ?? []),
                'tmp' => count($req->tmpfiles ?? []),
                'body' => strlen((string) $req->rawContent()),
            ]));
            break;
        case '/flood':
            $n = (int) ($req->get['n'] ?? 100);
            $chunk = str_repeat('x', (int) ($req->get['size'] ?? 65536));
            flood($n, fn() => $resp->write($chunk));
            $resp->end();
            break;
        case '/slow':
            Swoole\Coroutine::sleep((float) ($req->get['t'] ?? 1));
            $resp->end('slow done');
            break;
        case '/oom':
            ini_set('memory_limit', '64M');
            $a = [];
            while (true) {
                $a[] = str_repeat('m', 1 << 20);
            }
        case '/exit':
            exit(3);
        case '/fatal':
            trigger_error('deliberate', E_USER_ERROR);
            break;
        case '/stream_fail':
            $resp->write(str_repeat('s', 1000));
            throw new RuntimeException('mid-stream');
        case '/stream_exit':
            $resp->write(str_repeat('s', 1000));
            exit(4);
        case '/spin':
            $until = microtime(true) + (float) ($req->get['t'] ?? 3);
            while (microtime(true) < $until) {
            }
            $resp->end('spun');
            break;
        case '/status':
            $resp->end(json_encode($GLOBALS['st'] + ['rss_kb' => rss_kb(), 'pid' => getmypid()]));
            break;
        default:
            $resp->end('hello');
    }
});
$srv->on('message', function ($s, $frame) {
    $p = explode(' ', (string) $frame->data);
    if ($p[0] === 'flood') {
        $chunk = str_repeat('y', (int) $p[2]);
        flood((int) $p[1], fn() => $s->push($frame->fd, $chunk, WEBSOCKET_OPCODE_BINARY));
    } else {
        $s->push($frame->fd, (string) $frame->data);
    }
});
if (!empty($argv[4])) {
    $tcp = $srv->listen('127.0.0.1', (int) $argv[4], SWOOLE_SOCK_TCP);
    $tcp->set(['open_http_protocol' => false, 'open_websocket_protocol' => false]);
    $tcp->on('receive', function ($s, $fd, $rid, $data) {
        $p = explode(' ', trim($data));
        if ($p[0] !== 'flood') {
            $s->send($fd, $data);
            return;
        }
        $chunk = str_repeat('z', (int) $p[2]);
        flood((int) $p[1], fn() => $s->send($fd, $chunk));
    });
}
$srv->start();
