--TEST--
swoole_event: Event::cycle() runs once at the end of each loop round that ran something (not on a clock), in a coroutine (as Swoole); cycle(null) with none set is false
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Event;
use Swoole\Timer;

var_dump(Event::cycle(null));
$n = 0;
Event::cycle(function () use (&$n) {
    // As Swoole: each round's call runs in a coroutine of its own.
    echo "cycle $n in a coroutine: ", var_export(Co::getCid() > 0, true), "\n";
    if (++$n === 3) {
        var_dump(Event::cycle(null));
    }
});
Timer::after(60, function () {
    echo "timer 1\n";
    Timer::after(60, function () {
        echo "timer 2\n";
    });
    Event::defer(function () {
        echo "defer\n";
    });
});
Event::wait();
echo "end $n\n";
?>
--EXPECT--
bool(false)
cycle 0 in a coroutine: true
timer 1
defer
cycle 1 in a coroutine: true
timer 2
cycle 2 in a coroutine: true
bool(true)
end 3
