--TEST--
swoole_timer: swoole_async_set(['enable_coroutine' => false]) runs timer callbacks outside any coroutine; true puts them back in one
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
swoole_async_set(['enable_coroutine' => false]);
Swoole\Timer::after(1, function () {
    var_dump(Swoole\Coroutine::getCid());
});
Swoole\Event::wait();
swoole_async_set(['enable_coroutine' => true]);
Swoole\Timer::after(1, function () {
    var_dump(Swoole\Coroutine::getCid() > 0);
});
Swoole\Event::wait();
?>
--EXPECT--
int(-1)
bool(true)
