--TEST--
swoole_http_server_coro: WebSocket on Co\Http\Server: $response->upgrade() answers the handshake with the headers and cookies set before it, recv() returns Frame objects (and "" once the client closed), push() and ping() send frames, recv($timeout) gives false on timeout, disconnect() closes it; the connection closes when the handler returns; 10 clients at once
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

Co\run(function () {
    $s = new Co\Http\Server('127.0.0.1', 0);
    $log = [];
    $s->handle('/ws', function ($req, $ws) use (&$log) {
        $ws->header('x-greeting', 'hello');
        $ws->cookie('c', 'v');
        var_dump($ws->upgrade());
        while (true) {
            $frame = $ws->recv();
            if ($frame === '') {
                $log[] = 'closed';
                break;
            }
            if ($frame === false) {
                $log[] = 'false';
                break;
            }
            if ($frame->data === 'ping me') {
                $ws->ping('p');
            }
            if ($frame->data === 'bye') {
                $ws->disconnect(4000, 'done');
                $log[] = 'disconnected';
                break;
            }
            $ws->push("echo {$frame->data} op={$frame->opcode}");
        }
    });
    $s->handle('/short', function ($req, $ws) {
        $ws->upgrade();
        $f = $ws->recv(0.1);
        echo 'recv timeout: ', var_export($f, true), "\n";
        $ws->push('short');
        // Returning closes the connection.
    });
    go(fn () => $s->start());
    $port = $s->port;

    $c = new Co\Http\Client('127.0.0.1', $port);
    var_dump($c->upgrade('/ws'), $c->statusCode, $c->headers['x-greeting'] ?? null, $c->cookies['c'] ?? null);
    $c->push('one');
    echo $c->recv(2)->data, "\n";
    $c->push('two', WEBSOCKET_OPCODE_BINARY);
    echo $c->recv(2)->data, "\n";
    // The client answers the server's ping itself; the echo follows.
    $c->push('ping me');
    echo $c->recv(2)->data, "\n";
    $c->push('bye');
    $f = $c->recv(2);
    echo 'after disconnect(): ', is_object($f) ? get_class($f) . " {$f->code} {$f->reason}" : var_export($f, true), "\n";

    $ok = 0;
    $wg = new Co\WaitGroup();
    for ($i = 0; $i < 10; $i++) {
        $wg->add();
        go(function () use ($port, $i, $wg, &$ok) {
            $c = new Co\Http\Client('127.0.0.1', $port);
            $c->upgrade('/ws');
            $c->push("c$i");
            $ok += ($c->recv(2)->data ?? '') === "echo c$i op=1";
            $c->close();
            $wg->done();
        });
    }
    $wg->wait();
    echo "10 clients: $ok\n";

    $c = new Co\Http\Client('127.0.0.1', $port);
    $c->upgrade('/short');
    echo $c->recv(2)->data, "\n";
    $f = $c->recv(2);
    echo 'after the handler returned: ', var_export($f === '' || $f === false || $f instanceof Swoole\WebSocket\CloseFrame, true), "\n";
    Co::sleep(0.1);
    echo implode(',', array_unique($log)), "\n";
    $s->shutdown();
});
?>
--EXPECT--
bool(true)
bool(true)
int(101)
string(5) "hello"
string(1) "v"
echo one op=1
echo two op=2
echo ping me op=1
after disconnect(): ''
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
10 clients: 10
recv timeout: false
short
after the handler returned: true
disconnected,closed
