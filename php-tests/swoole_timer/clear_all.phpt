--TEST--
swoole_timer: clearAll() removes every timer, nothing fires and the loop ends at once
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Timer;

$fired = 0;
Timer::tick(10, function () use (&$fired) { $fired++; });
Timer::after(10, function () use (&$fired) { $fired++; });
Timer::after(50, function () use (&$fired) { $fired++; });
var_dump(Timer::stats()['num']);
var_dump(Timer::clearAll());
var_dump(Timer::stats()['num']);
var_dump(iterator_to_array(Timer::list(), false));
$t = microtime(true);
Swoole\Event::wait();
var_dump(microtime(true) - $t < 0.5);
var_dump($fired);
?>
--EXPECT--
int(3)
bool(true)
int(0)
array(0) {
}
bool(true)
int(0)
