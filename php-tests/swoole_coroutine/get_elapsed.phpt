--TEST--
swoole_coroutine: getElapsed() gives the milliseconds a coroutine has lived; -1 for an unknown cid
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    $e0 = Coroutine::getElapsed();
    var_dump(is_int($e0), $e0 >= 0 && $e0 < 50);
    $cid = go(function () {
        Coroutine::sleep(0.15);
    });
    Coroutine::sleep(0.1);
    $mine = Coroutine::getElapsed();
    $child = Coroutine::getElapsed($cid);
    var_dump($mine >= 95 && $mine < 300);
    var_dump($child >= 95 && $child < 300);
    var_dump(Coroutine::getElapsed(999999));
});
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
int(-1)
