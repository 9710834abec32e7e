--TEST--
swoole_coroutine: the deadlock report counts every coroutine left asleep (here 3)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    $ch = new Swoole\Coroutine\Channel(1);
    go(function () use ($ch) { $ch->pop(); });
    go(function () { Coroutine::yield(); });
    go(function () { Coroutine::sleep(0.01); echo "sleeper finished\n"; });
    $ch2 = new Swoole\Coroutine\Channel(1);
    $ch2->pop();
});
echo "returned\n";
?>
--EXPECTF--
%Asleeper finished
%A[FATAL ERROR]: all coroutines (count: 3) are asleep - deadlock!
%A
returned%A
