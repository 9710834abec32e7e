--TEST--
swoole_coroutine: resume() of a coroutine that does not exist (or is not yielded) warns and returns false
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    var_dump(Coroutine::resume(999999));
    $sleeper = go(fn() => Coroutine::sleep(0.02));
    var_dump(Coroutine::resume($sleeper));
});
?>
--EXPECTF--
Warning: Swoole\Coroutine::resume(): can not resume the coroutine which is in IO operation or non-existent in %s on line %d
bool(false)

Warning: Swoole\Coroutine::resume(): can not resume the coroutine which is in IO operation or non-existent in %s on line %d
bool(false)
