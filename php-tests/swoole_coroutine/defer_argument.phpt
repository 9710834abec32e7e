--TEST--
swoole_coroutine: a defer callback is called with one argument, null (as Swoole calls it)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
Co\run(function () {
    go(function () {
        Co::defer(function () { var_dump(func_get_args()); });
    });
});
?>
--EXPECT--
array(1) {
  [0]=>
  NULL
}
