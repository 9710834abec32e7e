<?php
// Broadcast fan-out (bench/seed003.sh): RSW_CONNS WebSocket clients (coroutine clients, one
// coroutine each) connect to the seed 003 server; then, RSW_ROUNDS times, one client sends a
// message, the server's task worker pushes it to every connection, and we time how long until
// every client has received it. Prints one JSON line.
$port = (int) getenv('RSW_PORT');
$n = (int) (getenv('RSW_CONNS') ?: 1000);
$rounds = (int) (getenv('RSW_ROUNDS') ?: 5);
Co\run(function () use ($port, $n, $rounds) {
    $clients = [];
    $wg = new Swoole\Coroutine\WaitGroup();
    $failed = 0;
    for ($i = 0; $i < $n; $i++) {
        $wg->add();
        go(function () use ($port, $i, &$clients, &$failed, $wg) {
            $c = new Swoole\Coroutine\Http\Client('127.0.0.1', $port);
            $c->set(['timeout' => 10]);
            if ($c->upgrade('/')) {
                $clients[$i] = $c;
            } else {
                $failed++;
            }
            $wg->done();
        });
    }
    $wg->wait(30);
    $times = [];
    $missing = 0;
    for ($r = 0; $r < $rounds; $r++) {
        $msg = "fanout-$r-" . bin2hex(random_bytes(4));
        $got = new Swoole\Coroutine\WaitGroup();
        $lost = 0;
        foreach ($clients as $c) {
            $got->add();
            go(function () use ($c, $msg, $got, &$lost) {
                // Skip anything older (a previous round's message) until ours arrives.
                $deadline = microtime(true) + 10;
                do {
                    $f = $c->recv(max(0.01, $deadline - microtime(true)));
                } while ($f !== false && $f->data !== $msg && microtime(true) < $deadline);
                if ($f === false || $f->data !== $msg) {
                    $lost++;
                }
                $got->done();
            });
        }
        $sender = new Swoole\Coroutine\Http\Client('127.0.0.1', $port);
        $sender->upgrade('/');
        $t0 = hrtime(true);
        $sender->push($msg);
        $got->wait(20);
        $times[] = (hrtime(true) - $t0) / 1e6;
        $missing += $lost;
        $sender->close();
        Co::sleep(0.2);
    }
    sort($times);
    echo json_encode(['connections' => count($clients), 'connect_failures' => $failed, 'rounds' => $rounds,
        'ms' => $times, 'median_ms' => $times[intdiv(count($times), 2)], 'max_ms' => end($times), 'missing' => $missing]), "\n";
    foreach ($clients as $c) {
        $c->close();
    }
});
