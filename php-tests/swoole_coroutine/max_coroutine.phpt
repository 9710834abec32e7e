--TEST--
swoole_coroutine: Coroutine::set(['max_coroutine' => N]): creating more warns "exceed max number of coroutine N" and returns false
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Coroutine::set(['max_coroutine' => 3]);
Co\run(function () {
    // the Co\run coroutine counts: two more fit
    $a = go(fn() => Coroutine::sleep(0.02));
    $b = Coroutine::create(fn() => Coroutine::sleep(0.02));
    var_dump($a > 0, $b > 0);
    var_dump(go(function () { echo "never\n"; }));
    var_dump(Coroutine::create(function () { echo "never\n"; }));
    Coroutine::sleep(0.05);
    // the first two ended: room again
    var_dump(go(function () { echo "fits again\n"; }) > 0);
});
?>
--EXPECTF--
bool(true)
bool(true)

Warning: go(): exceed max number of coroutine 3 in %s on line %d
bool(false)

Warning: Swoole\Coroutine::create(): exceed max number of coroutine 3 in %s on line %d
bool(false)
fits again
bool(true)
