--TEST--
swoole_websocket_server: a port added with listen() and open_websocket_protocol accepts WebSocket upgrades (the server's message callback answers there), in both modes; a port set() without it is raw TCP; the PROCESS-mode server is started after the test process ran Co\run() (its master still takes SIGTERM)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach ([SWOOLE_BASE => "base", SWOOLE_PROCESS => "process"] as $mode => $name) {
    $extra = rsw_free_port();
    $raw = rsw_free_port();
    $t = new ServerTest(function ($port, $ready) use ($mode, $extra, $raw) {
        $s = new Swoole\WebSocket\Server('127.0.0.1', $port, $mode);
        $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
        $s->on('workerStart', function () use ($ready) { $ready(); });
        $s->on('message', function ($s, $f) {
            $info = $s->getClientInfo($f->fd);
            $s->push($f->fd, "echo:{$f->data} port:{$info['server_port']}");
        });
        $p = $s->listen('127.0.0.1', $extra, SWOOLE_SOCK_TCP);
        $p->set(['open_websocket_protocol' => true]);
        $q = $s->listen('127.0.0.1', $raw, SWOOLE_SOCK_TCP);
        // Without a set() of its own a port inherits the server's HTTP/WebSocket protocol (as in Swoole).
        $q->set(['open_http_protocol' => false]);
        $q->on('receive', function ($s, $fd, $rid, $data) { $s->send($fd, "raw:$data"); });
        $s->start();
    }, ['ready_count' => 1]);
    $t->start();
    $out = [];
    Co\run(function () use ($t, $extra, $raw, &$out) {
        foreach ([$t->port, $extra] as $p) {
            $c = new Co\Http\Client('127.0.0.1', $p);
            $ok = $c->upgrade('/');
            $c->push('hi');
            $f = $c->recv(3);
            $out[] = ($p === $extra ? 'extra' : 'main') . ": upgrade={$c->statusCode} " . ($f ? str_replace((string) $p, 'P', $f->data) : 'no frame');
            $c->close();
        }
        $s = stream_socket_client("tcp://127.0.0.1:$raw", $e, $es, 2);
        fwrite($s, 'x');
        stream_set_timeout($s, 2);
        $out[] = 'raw port: ' . fread($s, 10);
    });
    echo "== $name\n", implode("\n", $out), "\n", $t->stop(), "\n";
}
?>
--EXPECT--
== base
main: upgrade=101 echo:hi port:P
extra: upgrade=101 echo:hi port:P
raw port: raw:x
exit=0
== process
main: upgrade=101 echo:hi port:P
extra: upgrade=101 echo:hi port:P
raw port: raw:x
exit=0
