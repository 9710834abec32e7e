--TEST--
swoole_coroutine: Coroutine::create() and go() return the new coroutine's id, increasing
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    $seen = [];
    $a = Coroutine::create(function () use (&$seen) { $seen[] = Coroutine::getCid(); });
    $b = go(function ($x, $y) use (&$seen) { $seen[] = Coroutine::getCid(); echo "args $x $y\n"; }, 'p', 'q');
    $c = Swoole\Coroutine::create(fn() => Coroutine::sleep(0.01));
    var_dump(is_int($a) && $a > 0);
    var_dump($b > $a, $c > $b);
    var_dump($seen === [$a, $b]);
    var_dump($a !== Coroutine::getCid());
});
?>
--EXPECT--
args p q
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
