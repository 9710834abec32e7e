--TEST--
swoole_timer: after() lets go of its callback and params once it has fired (no leak per timer)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The object passed as a param is destroyed right after the one-shot callback ran, not at the
// script's end: the timer table does not keep callables of timers that are gone.
class Probe { public function __destruct() { echo "probe freed\n"; } }
Swoole\Timer::after(10, function (Probe $p) { echo "fired\n"; }, new Probe());
Swoole\Timer::after(50, function () { echo "later\n"; });
Swoole\Event::wait();
echo "end\n";
?>
--EXPECT--
fired
probe freed
later
end
