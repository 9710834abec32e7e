--TEST--
swoole_event: a timer does not fire in the Event::dispatch() round it was added in (as Swoole's reactor): the first round waits for its deadline and returns, the next runs it at once; later beats fire in their own round; Event::wait() runs a held-back timer
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$log = [];
$id = Swoole\Timer::tick(50, function () use (&$log) { $log[] = 'tick'; });
for ($i = 0; $i < 4; $i++) {
    $t = microtime(true);
    Swoole\Event::dispatch();
    $ms = (microtime(true) - $t) * 1000;
    $log[] = 'dispatch ' . ($ms < 20 ? 'at once' : ($ms < 80 ? 'waited' : "too long $ms"));
}
Swoole\Timer::clear($id);
echo implode("\n", $log), "\n";

// A one-off timer held back by the last round still fires in Event::wait().
$log = [];
Swoole\Timer::after(20, function () use (&$log) { $log[] = 'after'; });
Swoole\Event::dispatch();
$log[] = 'dispatched';
Swoole\Event::wait();
echo implode("\n", $log), "\n";
?>
--EXPECT--
dispatch waited
tick
dispatch at once
tick
dispatch waited
tick
dispatch waited
dispatched
after
