--TEST--
swoole_timer: list() is an iterable of the live timer ids
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Timer;

$a = Timer::after(50, function () {});
$b = Timer::tick(50, function () {});
$c = Timer::after(50, function () {});
$list = Timer::list();
var_dump($list instanceof Traversable);
$ids = [];
foreach ($list as $id) {
    $ids[] = $id;
}
sort($ids);
var_dump($ids === [$a, $b, $c]);
Timer::clear($b);
$ids = iterator_to_array(Timer::list(), false);
sort($ids);
var_dump($ids === [$a, $c]);
Timer::clearAll();
var_dump(iterator_to_array(Timer::list(), false));
Swoole\Event::wait();
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
array(0) {
}
