--TEST--
swoole_event: Event::wait() runs pending timers and returns when none is left
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Event;
use Swoole\Timer;

Timer::after(80, function () { echo "after 80\n"; });
Timer::tick(30, function ($id) {
    static $n = 0;
    echo "tick ", ++$n, "\n";
    if ($n === 2) {
        Timer::clear($id);
        Timer::after(50, function () { echo "after 50, added at 60\n"; });
    }
});
echo "before wait\n";
$t = microtime(true);
Event::wait();
$el = microtime(true) - $t;
echo "after wait\n";
var_dump($el >= 0.1 && $el < 1.0);
var_dump(Timer::stats()['num']);
?>
--EXPECT--
before wait
tick 1
tick 2
after 80
after 50, added at 60
after wait
bool(true)
int(0)
