--TEST--
swoole_coroutine: getPcid() is -1 for the top coroutine, the parent's cid for a child, and takes a cid argument
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    $top = Coroutine::getCid();
    var_dump(Coroutine::getPcid());
    $child = go(function () use ($top) {
        $me = Coroutine::getCid();
        var_dump(Coroutine::getPcid() === $top);
        go(function () use ($me) {
            var_dump(Coroutine::getPcid() === $me);
        });
        Coroutine::sleep(0.02);
    });
    var_dump(Coroutine::getPcid($child) === $top);
    var_dump(Coroutine::getPcid(999999));
});
?>
--EXPECT--
int(-1)
bool(true)
bool(true)
bool(true)
bool(false)
