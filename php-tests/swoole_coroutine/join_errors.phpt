--TEST--
swoole_coroutine: Coroutine::join() refuses self and a coroutine another join waits for (SWOOLE_ERROR_WRONG_OPERATION), skips unknown cids, and says CANCELED when canceled
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\System;

Co\run(function () {
    $me = Coroutine::getCid();
    var_dump(Coroutine::join([]), swoole_last_error() === SWOOLE_ERROR_INVALID_PARAMS);
    var_dump(@Coroutine::join([$me]), swoole_last_error() === SWOOLE_ERROR_WRONG_OPERATION);
    var_dump(Coroutine::join([99999]), swoole_last_error() === SWOOLE_ERROR_INVALID_PARAMS);

    $sleeper = go(function () {
        System::sleep(0.1);
    });
    go(function () use ($sleeper) {
        System::sleep(0.01);
        // The main coroutine already joins $sleeper.
        var_dump(Coroutine::join([$sleeper]), swoole_last_error() === SWOOLE_ERROR_WRONG_OPERATION);
    });
    var_dump(Coroutine::join([$sleeper, 99999]));

    $long = go(function () {
        System::sleep(0.2);
    });
    go(function () use ($me) {
        System::sleep(0.01);
        Coroutine::cancel($me);
    });
    var_dump(Coroutine::join([$long]), swoole_last_error() === SWOOLE_ERROR_CO_CANCELED);
    var_dump(Coroutine::exists($long));
});
?>
--EXPECT--
bool(false)
bool(true)
bool(false)
bool(true)
bool(false)
bool(true)
bool(false)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
