--TEST--
swoole_coroutine: Coroutine::suspend() (alias of yield) with resume() from another coroutine and from a timer
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    $waiter = go(function () {
        echo "waiter suspends\n";
        Coroutine::suspend();
        echo "waiter woken by coroutine\n";
        Coroutine::suspend();
        echo "waiter woken by timer\n";
    });
    go(function () use ($waiter) {
        Coroutine::sleep(0.02);
        echo "waker resumes waiter\n";
        Coroutine::resume($waiter);
        echo "waker done\n";
    });
    Swoole\Timer::after(50, function () use ($waiter) {
        echo "timer resumes waiter\n";
        Coroutine::resume($waiter);
    });
    echo "main done\n";
});
echo "run returned\n";
?>
--EXPECT--
waiter suspends
main done
waker resumes waiter
waiter woken by coroutine
waker done
timer resumes waiter
waiter woken by timer
run returned
