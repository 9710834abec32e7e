--TEST--
swoole_timer: an interval below 1 ms gives E_WARNING "Timer must be greater than or equal to 1" and returns false
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
var_dump(Swoole\Timer::tick(0, function () { echo "never\n"; }));
var_dump(Swoole\Timer::after(-10, function () { echo "never\n"; }));
var_dump(swoole_timer_tick(0, function () { echo "never\n"; }));
var_dump(swoole_timer_after(0, function () { echo "never\n"; }));
var_dump(Swoole\Timer::stats()['num']);
Swoole\Event::wait();
echo "done\n";
?>
--EXPECTF--
Warning: Swoole\Timer::tick(): Timer must be greater than or equal to 1 in %s on line %d
bool(false)

Warning: Swoole\Timer::after(): Timer must be greater than or equal to 1 in %s on line %d
bool(false)

Warning: swoole_timer_tick(): Timer must be greater than or equal to 1 in %s on line %d
bool(false)

Warning: swoole_timer_after(): Timer must be greater than or equal to 1 in %s on line %d
bool(false)
int(0)
done
