--TEST--
swoole_timer: a non-callable callback throws TypeError and creates no timer
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
foreach ([
    fn() => Swoole\Timer::tick(10, 'no_such_function_xyz'),
    fn() => Swoole\Timer::after(10, [new stdClass, 'nope']),
    fn() => swoole_timer_tick(10, 42),
    fn() => swoole_timer_after(10, 'no_such_function_xyz'),
] as $f) {
    try {
        var_dump($f());
    } catch (TypeError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
var_dump(Swoole\Timer::stats()['num']);
?>
--EXPECTF--
TypeError: Swoole\Timer::tick(): Argument #2 ($callback) must be a valid callback, %s
TypeError: Swoole\Timer::after(): Argument #2 ($callback) must be a valid callback, %s
TypeError: swoole_timer_tick(): Argument #2 ($callback) must be a valid callback, %s
TypeError: swoole_timer_after(): Argument #2 ($callback) must be a valid callback, %s
int(0)
