--TEST--
swoole_event: Event::cycle($cb) is called on every loop round until removed with null
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Event;
use Swoole\Timer;

$cycles = 0;
$ticks = 0;
$seenAtTick = [];
var_dump(Event::cycle(function () use (&$cycles) { $cycles++; }));
Timer::tick(20, function ($id) use (&$ticks, &$cycles, &$seenAtTick) {
    $seenAtTick[] = $cycles;
    if (++$ticks === 4) {
        Timer::clear($id);
        Event::cycle(null);
        $cycles = 1000;
        Timer::after(30, function () {});
    }
});
Event::wait();
var_dump($ticks);
// each tick is its own loop round, so the cycle count grew between ticks
var_dump($seenAtTick[3] >= 3);
var_dump($seenAtTick[1] > $seenAtTick[0], $seenAtTick[2] > $seenAtTick[1], $seenAtTick[3] > $seenAtTick[2]);
// removed: the extra 30 ms round after the last tick did not call it
var_dump($cycles);
?>
--EXPECT--
bool(true)
int(4)
bool(true)
bool(true)
bool(true)
bool(true)
int(1000)
