--TEST--
swoole_timer: several timers fire in the order of their intervals, not of their creation
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Timer;

$log = [];
Timer::after(150, function () use (&$log) { $log[] = 'after150'; });
Timer::after(50, function () use (&$log) { $log[] = 'after50'; });
Timer::after(100, function () use (&$log) { $log[] = 'after100'; });
$n = 0;
Timer::tick(40, function ($id) use (&$log, &$n) {
    $log[] = 'tick40#' . ++$n;
    if ($n === 3) {
        Timer::clear($id);
    }
});
Swoole\Event::wait();
echo implode("\n", $log), "\n";
?>
--EXPECT--
tick40#1
after50
tick40#2
after100
tick40#3
after150
