--TEST--
swoole_timer: swoole_timer_tick, swoole_timer_after and swoole_timer_clear work like the Timer methods
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$log = [];
$a = swoole_timer_after(20, function ($x) use (&$log) { $log[] = "after $x"; }, 'p');
$dead = swoole_timer_after(30, function () use (&$log) { $log[] = 'cleared timer fired'; });
$t = swoole_timer_tick(15, function ($id, $x) use (&$log, &$t) {
    static $n = 0;
    $log[] = 'tick ' . ($id === $t ? 'own-id' : 'bad-id') . " $x";
    if (++$n === 2) {
        $log[] = 'clear ' . var_export(swoole_timer_clear($id), true);
    }
}, 'q');
var_dump($a > 0, $t > 0);
var_dump(swoole_timer_clear($dead));
var_dump(swoole_timer_clear($dead));
Swoole\Event::wait();
echo implode("\n", $log), "\n";
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(false)
tick own-id q
after p
tick own-id q
clear true
