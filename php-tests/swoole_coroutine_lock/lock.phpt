--TEST--
swoole_coroutine_lock: lock/unlock, LOCK_NB, a second coroutine waits without holding the loop, false outside a coroutine
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Lock;
$lock = new Lock();
var_dump($lock->lock(), $lock->errCode === SWOOLE_ERROR_CO_OUT_OF_COROUTINE);
Co\run(function () use ($lock) {
    var_dump($lock->lock(LOCK_NB));
    $ticks = 0;
    go(function () use (&$ticks) { for ($i = 0; $i < 5; $i++) { Co::sleep(0.01); $ticks++; } });
    go(function () use ($lock, &$ticks) {
        var_dump($lock->lock(LOCK_NB));
        $t = microtime(true);
        var_dump($lock->lock(), microtime(true) - $t >= 0.09, $ticks >= 4);
        var_dump($lock->unlock());
    });
    Co::sleep(0.1);
    var_dump($lock->unlock());
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
bool(true)
bool(true)
