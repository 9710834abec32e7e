--TEST--
swoole_coroutine: outside a coroutine getCid() is -1, getPcid() false, getContext() null, getElapsed() -1
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

var_dump(Coroutine::getCid());
var_dump(Coroutine::getPcid());
var_dump(Coroutine::getContext());
var_dump(Coroutine::getElapsed());
var_dump(Coroutine::exists(1));
var_dump(iterator_to_array(Coroutine::list(), false));
var_dump(Coroutine::stats()['coroutine_num']);
Co\run(function () {
    var_dump(Coroutine::getCid() > 0);
});
var_dump(Coroutine::getCid());
?>
--EXPECT--
int(-1)
bool(false)
NULL
int(-1)
bool(false)
array(0) {
}
int(0)
bool(true)
int(-1)
