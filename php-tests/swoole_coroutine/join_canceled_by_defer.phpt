--TEST--
swoole_coroutine: join() resumes from the loop, so an Event::defer queued by the joined coroutine as it ends can still cancel the joiner (false, SWOOLE_ERROR_CO_CANCELED)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
Co\run(function () {
    $me = Coroutine::getCid();
    $cid = go(function () use ($me) {
        Coroutine::sleep(0.02);
        Swoole\Event::defer(function () use ($me) {
            echo "defer cancels the joiner\n";
            Coroutine::cancel($me);
        });
    });
    var_dump(Coroutine::join([$cid]), swoole_last_error() === SWOOLE_ERROR_CO_CANCELED, Coroutine::exists($cid));
    $cid = go(function () {
        Coroutine::sleep(0.02);
    });
    var_dump(Coroutine::join([$cid]));
});

?>
--EXPECT--
defer cancels the joiner
bool(false)
bool(true)
bool(false)
bool(true)
