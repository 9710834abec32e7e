--TEST--
swoole_timer: info() returns exec_msec, exec_count, interval, round, removed; null for an unknown id
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Timer;

$t0 = microtime(true);
$tick = Timer::tick(20, function () {});
$info = Timer::info($tick);
var_dump(array_keys($info));
var_dump(is_int($info['exec_msec']), $info['exec_count'], $info['interval'], is_int($info['round']), $info['removed']);
var_dump(Timer::info(987654));

Timer::after(110, function () use ($tick, $t0) {
    $i = Timer::info($tick);
    // the 20 ms tick ran about 5 times in 110 ms; never more often than every 20 ms of the time that
    // really passed (under the parallel suite this callback may itself fire late, and rounds may be lost)
    $max = intdiv((int) ((microtime(true) - $t0) * 1000), 20);
    var_dump($i['exec_count'] >= 1 && $i['exec_count'] <= $max, $i['interval'], $i['removed']);
    Timer::clear($tick);
    var_dump(Timer::info($tick)); // gone once cleared from another callback
    var_dump(Timer::info(987654));
});
$n = 0;
Timer::tick(30, function (int $id) use (&$n) {
    if (++$n === 2) {
        Timer::clear($id);
        $i = Timer::info($id); // still visible inside its own callback, flagged removed
        var_dump($i['interval'], $i['removed']);
    }
});
Swoole\Event::wait();
?>
--EXPECT--
array(5) {
  [0]=>
  string(9) "exec_msec"
  [1]=>
  string(10) "exec_count"
  [2]=>
  string(8) "interval"
  [3]=>
  string(5) "round"
  [4]=>
  string(7) "removed"
}
bool(true)
int(0)
int(20)
bool(true)
bool(false)
NULL
int(30)
bool(true)
bool(true)
int(20)
bool(false)
NULL
NULL
