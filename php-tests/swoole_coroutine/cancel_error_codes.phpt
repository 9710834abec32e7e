--TEST--
swoole_coroutine: a canceled wait says why (sleep ends at once, suspend/waitSignal/gethostbyname set SWOOLE_ERROR_CO_CANCELED, Channel::$errCode is SWOOLE_CHANNEL_CANCELED)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\System;

function cancel_soon(int $cid): void
{
    go(function () use ($cid) {
        System::sleep(0.005);
        var_dump(Coroutine::cancel($cid));
    });
}

$t = microtime(true);
Co\run(function () {
    $cid = Coroutine::getCid();

    cancel_soon($cid);
    var_dump(System::sleep(1000));
    var_dump(Coroutine::isCanceled(), swoole_last_error() === SWOOLE_ERROR_CO_CANCELED);

    cancel_soon($cid);
    swoole_clear_error();
    var_dump(Coroutine::suspend(), swoole_last_error() === SWOOLE_ERROR_CO_CANCELED);

    cancel_soon($cid);
    swoole_clear_error();
    var_dump(System::waitSignal(SIGUSR2, 1000), swoole_last_error() === SWOOLE_ERROR_CO_CANCELED);

    $chan = new Coroutine\Channel(1);
    cancel_soon($cid);
    var_dump($chan->pop(1000), $chan->errCode === SWOOLE_CHANNEL_CANCELED);
    $chan->push(1);
    cancel_soon($cid);
    var_dump($chan->push(2, 1000), $chan->errCode === SWOOLE_CHANNEL_CANCELED);
});
// (Each canceled coroutine runs on inside cancel(), so its lines come
// before the canceler's bool(true).) A canceled wait of 1000 s must not
// keep the loop alive.
var_dump(microtime(true) - $t < 5);
?>
--EXPECT--
bool(false)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
