--TEST--
swoole_coroutine: exists($cid) is true while the coroutine lives and false once it ended
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    var_dump(Coroutine::exists(Coroutine::getCid()));
    $done = go(function () {});
    $sleeping = go(function () { Coroutine::sleep(0.05); });
    var_dump(Coroutine::exists($done));
    var_dump(Coroutine::exists($sleeping));
    var_dump(Coroutine::exists(999999));
    Coroutine::sleep(0.1);
    var_dump(Coroutine::exists($sleeping));
});
?>
--EXPECT--
bool(true)
bool(false)
bool(true)
bool(false)
bool(false)
