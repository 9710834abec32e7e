--TEST--
swoole_coroutine_scheduler: enable_preemptive_scheduler: a busy loop (while, for, goto) without any wait is preempted after about 10 ms, so go() returns and other coroutines run; Coroutine::disableScheduler() exempts the calling coroutine (true/false as it changes state), enableScheduler() lets it be preempted again; without the option nothing is preempted
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

// Runs a busy loop in a coroutine; answers how long go() took to return
// and in which order things happened.
function busy(callable $loop): array
{
    $log = [];
    $flag = true;
    $t = microtime(true);
    go(function () use (&$flag, &$log, $loop) {
        $log[] = 'loop start';
        $loop($flag);
        $log[] = 'loop end';
    });
    $took = microtime(true) - $t;
    go(function () use (&$flag, &$log) {
        $log[] = 'flag off';
        $flag = false;
    });
    Swoole\Event::wait();
    return [$took, implode(', ', $log)];
}

Co::set(['enable_preemptive_scheduler' => true]);
foreach ([
    'while' => function (&$flag) { $i = 0; while ($flag) { $i++; } },
    'for' => function (&$flag) { for ($i = 0; $flag; $i++) { } },
    'goto' => function (&$flag) { $i = 0; a: $i++; if ($flag) { goto a; } },
] as $name => $loop) {
    [$took, $log] = busy($loop);
    echo "$name: $log; go() returned within 5..200 ms: ", var_export($took > 0.005 && $took < 0.2, true), "\n";
}

go(function () {
    var_dump(Co::disableScheduler(), Co::disableScheduler());
    $t = microtime(true);
    $other = false;
    go(function () use (&$other) { Co::sleep(0.001); $other = true; });
    // Not preempted: 50 ms of busy work ends before anything else runs.
    $seen = [];
    while (microtime(true) - $t < 0.05) {
        $seen[$other] = true;
    }
    echo 'exempt loop saw only its own time: ', var_export(array_keys($seen) === [0], true), "\n";
    var_dump(Co::enableScheduler(), Co::enableScheduler());
});
Swoole\Event::wait();
var_dump(Co::disableScheduler());

Co::set(['enable_preemptive_scheduler' => false]);
$t = microtime(true);
$ran = false;
go(function () use (&$ran) {
    $t = microtime(true);
    while (microtime(true) - $t < 0.05) {
    }
    $ran = true;
});
echo 'off: the loop ran to its end inside go(): ', var_export($ran, true), "\n";
?>
--EXPECT--
while: loop start, flag off, loop end; go() returned within 5..200 ms: true
for: loop start, flag off, loop end; go() returned within 5..200 ms: true
goto: loop start, flag off, loop end; go() returned within 5..200 ms: true
bool(true)
bool(false)
exempt loop saw only its own time: true
bool(true)
bool(false)
bool(false)
off: the loop ran to its end inside go(): true

Deprecated: swoole_event_rshutdown(): Event::wait() in shutdown function is deprecated in Unknown on line 0
