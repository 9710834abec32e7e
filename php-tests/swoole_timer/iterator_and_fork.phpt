--TEST--
swoole_timer: Timer::list() is a Swoole\Timer\Iterator, Coroutine::list() a Swoole\Coroutine\Iterator (both ArrayIterator subclasses)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$id = Swoole\Timer::after(10, function () {});
$list = Swoole\Timer::list();
var_dump(get_class($list), $list instanceof ArrayIterator, iterator_to_array($list) === [$id]);
var_dump(get_class(swoole_timer_list()));
Co\run(function () {
    $l = Swoole\Coroutine::list();
    var_dump(get_class($l), $l instanceof ArrayIterator, count($l));
});
$r = new ReflectionClass('Swoole\Timer\Iterator');
var_dump($r->isInternal(), $r->getParentClass()->getName());
?>
--EXPECT--
string(21) "Swoole\Timer\Iterator"
bool(true)
bool(true)
string(21) "Swoole\Timer\Iterator"
string(25) "Swoole\Coroutine\Iterator"
bool(true)
int(1)
bool(true)
string(13) "ArrayIterator"
