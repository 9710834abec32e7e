--TEST--
swoole_coroutine: join($cids, $timeout) returns false after the timeout (SWOOLE_ERROR_CO_TIMEDOUT), coroutines go on
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    $finished = false;
    $cid = go(function () use (&$finished) {
        Coroutine::sleep(0.3);
        $finished = true;
    });
    $t = microtime(true);
    var_dump(Coroutine::join([$cid], 0.1));
    $el = microtime(true) - $t;
    var_dump(swoole_last_error() === SWOOLE_ERROR_CO_TIMEDOUT);
    var_dump($el >= 0.09 && $el < 0.25);
    var_dump($finished, Coroutine::exists($cid));
    var_dump(Coroutine::join([$cid], 1));
    var_dump($finished);
});
?>
--EXPECT--
bool(false)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
