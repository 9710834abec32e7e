--TEST--
swoole_event: Event::exit() stops the loop although timers are still pending
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Event;
use Swoole\Timer;

Timer::after(2000, function () { echo "never: 2 s timer\n"; });
Timer::tick(20, function () {
    static $n = 0;
    echo "tick ", ++$n, "\n";
    if ($n === 3) {
        Event::exit();
    }
});
$t = microtime(true);
Event::wait();
echo "wait returned\n";
var_dump(microtime(true) - $t < 1.0);
?>
--EXPECT--
tick 1
tick 2
tick 3
wait returned
bool(true)
