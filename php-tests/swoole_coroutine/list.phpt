--TEST--
swoole_coroutine: list() iterates over the ids of the live coroutines
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    $a = go(fn() => Coroutine::sleep(0.05));
    $b = go(fn() => Coroutine::sleep(0.1));
    go(function () {});
    $list = Coroutine::list();
    var_dump($list instanceof Traversable);
    $ids = iterator_to_array($list, false);
    sort($ids);
    var_dump($ids === [Coroutine::getCid(), $a, $b]);
    Coroutine::sleep(0.07);
    $ids = iterator_to_array(Coroutine::list(), false);
    sort($ids);
    var_dump($ids === [Coroutine::getCid(), $b]);
});
var_dump(iterator_to_array(Coroutine::list(), false));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
array(0) {
}
