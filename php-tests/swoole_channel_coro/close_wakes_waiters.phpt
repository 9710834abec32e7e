--TEST--
swoole_channel_coro: close() wakes every waiting popper (and pusher) with false and SWOOLE_CHANNEL_CLOSED
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\Channel;

Co\run(function () {
    $empty = new Channel(1);
    $full = new Channel(1);
    $full->push('x');
    $results = [];
    for ($i = 1; $i <= 3; $i++) {
        go(function () use ($empty, $i, &$results) {
            $r = $empty->pop();
            $results[] = "popper $i: " . var_export($r, true) . ' ' . $empty->errCode;
        });
    }
    go(function () use ($full, &$results) {
        $r = $full->push('y');
        $results[] = 'pusher: ' . var_export($r, true) . ' ' . $full->errCode;
    });
    var_dump($empty->stats()['consumer_num'], $full->stats()['producer_num']);
    $t = microtime(true);
    Coroutine::sleep(0.02);
    var_dump($results);
    $empty->close();
    $full->close();
    Coroutine::sleep(0.02);
    sort($results);
    echo implode("\n", $results), "\n";
    var_dump(microtime(true) - $t < 0.5);
});
?>
--EXPECT--
int(3)
int(1)
array(0) {
}
popper 1: false -2
popper 2: false -2
popper 3: false -2
pusher: false -2
bool(true)
