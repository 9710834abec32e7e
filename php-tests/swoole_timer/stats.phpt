--TEST--
swoole_timer: stats() reports initialized, num and round
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Timer;

$s = Timer::stats();
var_dump(array_keys($s));
var_dump($s['initialized'], $s['num']);
Timer::after(10, function () {});
Timer::after(20, function () {
    var_dump(Timer::stats()['num']);
});
Timer::tick(30, function ($id) { Timer::clear($id); });
$s = Timer::stats();
var_dump($s['initialized'], $s['num'], is_int($s['round']));
Swoole\Event::wait();
var_dump(Timer::stats()['num']);
?>
--EXPECT--
array(3) {
  [0]=>
  string(11) "initialized"
  [1]=>
  string(3) "num"
  [2]=>
  string(5) "round"
}
bool(false)
int(0)
bool(true)
int(3)
bool(true)
int(2)
int(0)
