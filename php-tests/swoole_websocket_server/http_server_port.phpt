--TEST--
swoole_websocket_server: on an Http\Server, a listen() port with open_websocket_protocol accepts WebSocket upgrades answered by the port's own handshake and message callbacks, in both modes; the main HTTP port answers an upgrade request as a plain request
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach ([SWOOLE_BASE => "base", SWOOLE_PROCESS => "process"] as $mode => $name) {
    $hs = rsw_free_port();
    $t = new ServerTest(function ($port, $ready) use ($mode, $hs) {
        $s = new Swoole\Http\Server('127.0.0.1', $port, $mode);
        $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
        $s->on('workerStart', function () use ($ready) { $ready(); });
        $s->on('request', function ($req, $resp) { $resp->end('http'); });
        // A port with its own handshake callback, which answers the 101.
        $p = $s->listen('127.0.0.1', $hs, SWOOLE_SOCK_TCP);
        $p->set(['open_http_protocol' => true, 'open_websocket_protocol' => true]);
        $p->on('handshake', function ($req, $resp) {
            $key = base64_encode(sha1($req->header['sec-websocket-key'] . '258EAFA5-E914-47DA-95CA-C5AB0DC85B11', true));
            $resp->header('Upgrade', 'websocket');
            $resp->header('Connection', 'Upgrade');
            $resp->header('Sec-WebSocket-Accept', $key);
            $resp->header('Sec-WebSocket-Version', '13');
            $resp->status(101);
            $resp->end();
            return true;
        });
        $p->on('message', function ($s, $f) {
            $out = new Swoole\WebSocket\Frame();
            $out->data = "hs:{$f->data}";
            $s->send($f->fd, (string) $out);
        });
        $s->start();
    }, ['ready_count' => 1]);
    $t->start();
    $out = [];
    Co\run(function () use ($t, $hs, &$out) {
        $c = new Co\Http\Client('127.0.0.1', $hs);
        $ok = $c->upgrade('/');
        $c->push('hi');
        $f = $c->recv(3);
        $out[] = "handshake port: upgrade=" . var_export($ok, true) . " {$c->statusCode} " . ($f ? $f->data : 'no frame');
        $c->close();
        $c = new Co\Http\Client('127.0.0.1', $t->port);
        $ok = $c->upgrade('/');
        $out[] = "main port: " . var_export($ok, true) . " {$c->statusCode} {$c->body}";
        $c->close();
    });
    echo "== $name\n", implode("\n", $out), "\n", $t->stop(), "\n";
}
?>
--EXPECT--
== base
handshake port: upgrade=true 101 hs:hi
main port: true 200 http
exit=0
== process
handshake port: upgrade=true 101 hs:hi
main port: true 200 http
exit=0
