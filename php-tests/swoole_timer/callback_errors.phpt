--TEST--
swoole_timer: a non-callable [class, method] gets PHP's words: missing method, private method, unknown class
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
class Test
{
    private static function foo() {}
    private function bar() {}
}
foreach ([[Test::class, 'not_exist'], [Test::class, 'foo'], [new Test(), 'bar'], ['Nope', 'x']] as $cb) {
    try {
        Swoole\Timer::after(1, $cb);
    } catch (TypeError $e) {
        echo $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
Swoole\Timer::after(): Argument #2 ($callback) must be a valid callback, class Test does not have a method "not_exist"
Swoole\Timer::after(): Argument #2 ($callback) must be a valid callback, cannot access private method Test::foo()
Swoole\Timer::after(): Argument #2 ($callback) must be a valid callback, cannot access private method Test::bar()
Swoole\Timer::after(): Argument #2 ($callback) must be a valid callback, class "Nope" not found
