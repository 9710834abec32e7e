<?php // bench/coro/pingpong.php: channel ping-pong, two coroutines exchanging a value over two Channel(1) for N round trips (bench/coro.sh step 3).
// Usage: php -n -d extension=... pingpong.php [N=1000000]
// One round trip = A pushes to $ping, B pops it and pushes v+1 to $pong, A pops it: 2 push + 2 pop
// and 2 coroutine switches. Prints: RESULT n=.. seconds=.. rt_per_sec=.. ops_per_sec=.. final=..
$n = (int) ($argv[1] ?? 1000000);
$final = -1;
$t0 = hrtime(true);
Co\run(function () use ($n, &$final) {
    $ping = new Swoole\Coroutine\Channel(1);
    $pong = new Swoole\Coroutine\Channel(1);
    go(function () use ($ping, $pong, $n) {
        for ($i = 0; $i < $n; $i++) {
            $pong->push($ping->pop() + 1);
        }
    });
    go(function () use ($ping, $pong, $n, &$final) {
        $v = 0;
        for ($i = 0; $i < $n; $i++) {
            $ping->push($v);
            $v = $pong->pop();
        }
        $final = $v;
    });
});
$secs = (hrtime(true) - $t0) / 1e9;
printf("RESULT n=%d seconds=%.4f rt_per_sec=%.0f ops_per_sec=%.0f final=%d\n",
    $n, $secs, $n / $secs, 4 * $n / $secs, $final);
