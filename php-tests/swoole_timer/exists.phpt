--TEST--
swoole_timer: exists() is true for a pending timer, false after it fired or was cleared
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Timer;

$a = Timer::after(10, function () {});
$b = Timer::after(20, function () {});
$c = Timer::after(30, function () use ($a, $b, &$c) {
    var_dump(Timer::exists($a), Timer::exists($b));
});
var_dump(Timer::exists($a), Timer::exists($b), Timer::exists($c));
var_dump(Timer::exists(123456));
Timer::clear($b);
var_dump(Timer::exists($b));
Swoole\Event::wait();
var_dump(Timer::exists($c));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
