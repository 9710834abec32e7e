--TEST--
swoole_coroutine: Co::sleep($t) and a channel pop timeout count from the call, not from when the loop next runs: coroutines that went to sleep while their creator kept the loop busy for 0.5 s still wake on time
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
Co\run(function () {
    $late = [];
    $popLate = 0.0;
    for ($i = 0; $i < 100; $i++) {
        go(function () use (&$late) {
            $t = microtime(true);
            Co::sleep(0.8);
            $late[] = microtime(true) - $t - 0.8;
        });
    }
    go(function () use (&$popLate) {
        $t = microtime(true);
        $r = (new Swoole\Coroutine\Channel(1))->pop(0.8);
        $popLate = microtime(true) - $t - 0.8;
        var_dump($r);
    });
    // Busy for 0.5 s without giving the loop a turn.
    $t = microtime(true);
    while (microtime(true) - $t < 0.5) {
    }
    Co::sleep(1.0);
    echo "woken: ", count($late), "\n";
    echo "latest sleep wake-up within 0.15 s of its deadline: ", var_export(max($late) < 0.15, true), "\n";
    echo "pop timeout within 0.15 s of its deadline: ", var_export($popLate < 0.15, true), "\n";
});
?>
--EXPECT--
bool(false)
woken: 100
latest sleep wake-up within 0.15 s of its deadline: true
pop timeout within 0.15 s of its deadline: true
