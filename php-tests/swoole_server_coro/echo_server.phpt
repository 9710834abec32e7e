--TEST--
swoole_server_coro: Coroutine\Server with framing serves concurrent clients, each connection in its own coroutine; shutdown() ends start()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Server;
use Swoole\Coroutine\Server\Connection;
Co\run(function () {
    $srv = new Server('127.0.0.1', 0);
    var_dump($srv->port > 0);
    $srv->set(['open_eof_check' => true, 'package_eof' => "\n"]);
    $srv->handle(function (Connection $conn) {
        while (($d = $conn->recv(2)) !== '' && $d !== false) {
            Co::sleep(0.1);
            $conn->send('re:' . $d);
        }
        $conn->close();
    });
    go(function () use ($srv) {
        $t = microtime(true);
        $wg = new Co\WaitGroup();
        $got = [];
        for ($i = 0; $i < 5; $i++) {
            $wg->add();
            go(function () use ($srv, $i, $wg, &$got) {
                $c = new Co\Client(SWOOLE_SOCK_TCP);
                $c->connect('127.0.0.1', $srv->port);
                $c->send("m$i\n");
                $got[$i] = $c->recv(2);
                $c->close();
                $wg->done();
            });
        }
        $wg->wait();
        ksort($got);
        echo implode('', $got);
        var_dump(microtime(true) - $t < 0.4);
        $srv->shutdown();
    });
    var_dump($srv->start());
});
?>
--EXPECT--
bool(true)
re:m0
re:m1
re:m2
re:m3
re:m4
bool(true)
bool(true)
