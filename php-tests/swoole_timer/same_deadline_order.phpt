--TEST--
swoole_timer: timers due in the same round fire in deadline order: a tick's third beat (created first) before an after() of three intervals
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$out = [];
for ($round = 0; $round < 3; $round++) {
    $log = [];
    $id = Swoole\Timer::tick(100, function () use (&$log) {
        $log[] = 'tick';
    });
    Swoole\Timer::after(300, function () use (&$log, $id) {
        $log[] = 'after';
        Swoole\Timer::clear($id);
    });
    Swoole\Event::wait();
    $out[] = implode(',', $log);
}
echo implode("\n", $out), "\n";
?>
--EXPECT--
tick,tick,tick,after
tick,tick,tick,after
tick,tick,tick,after
