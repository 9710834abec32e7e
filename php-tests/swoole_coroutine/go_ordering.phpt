--TEST--
swoole_coroutine: go() runs the child at once until it first waits, then the parent continues
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    echo "1 parent before go\n";
    go(function () {
        echo "2 child starts\n";
        go(function () {
            echo "3 grandchild starts\n";
            Coroutine::sleep(0.02);
            echo "7 grandchild resumed\n";
        });
        echo "4 child continues\n";
        Coroutine::sleep(0.01);
        echo "6 child resumed\n";
    });
    echo "5 parent after go\n";
    go(function () { echo "5b child without a wait runs to its end\n"; });
    echo "5c parent again\n";
});
echo "8 Co\\run returned\n";
?>
--EXPECT--
1 parent before go
2 child starts
3 grandchild starts
4 child continues
5 parent after go
5b child without a wait runs to its end
5c parent again
6 child resumed
7 grandchild resumed
8 Co\run returned
