--TEST--
swoole_coroutine: 50 coroutines each Co::sleep(0.1) concurrently: all done in well under 0.5 s
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$done = 0;
$t = microtime(true);
Co\run(function () use (&$done) {
    for ($i = 0; $i < 50; $i++) {
        go(function () use (&$done) {
            Co::sleep(0.1);
            $done++;
        });
    }
    var_dump($done);
});
$el = microtime(true) - $t;
var_dump($done);
var_dump($el >= 0.099);
var_dump($el < 0.5);
?>
--EXPECT--
int(0)
int(50)
bool(true)
bool(true)
