--TEST--
swoole_timer: clear() returns true for a live timer (which then never fires) and false otherwise
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Timer;

$fired = [];
$a = Timer::after(30, function () use (&$fired) { $fired[] = 'a'; });
$b = Timer::after(60, function () use (&$fired) { $fired[] = 'b'; });
$t = Timer::tick(20, function () use (&$fired) { $fired[] = 't'; });
var_dump(Timer::clear($a));
var_dump(Timer::clear($a));      // already cleared
var_dump(Timer::clear(987654));  // never existed
var_dump(Timer::clear($t));
Swoole\Event::wait();
var_dump($fired);
var_dump(Timer::clear($b));      // already fired
?>
--EXPECT--
bool(true)
bool(false)
bool(false)
bool(true)
array(1) {
  [0]=>
  string(1) "b"
}
bool(false)
