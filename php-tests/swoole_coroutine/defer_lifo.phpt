--TEST--
swoole_coroutine: defer() callbacks run in LIFO order when the coroutine exits, also after an exception
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    go(function () {
        defer(function () { echo "A defer 1\n"; });
        Coroutine::defer(function () { echo "A defer 2\n"; });
        defer(function () { echo "A defer 3\n"; });
        Coroutine::sleep(0.01);
        echo "A body end\n";
    });
    echo "main after A started\n";
    go(function () {
        defer(function () { echo "B defer 1\n"; });
        defer(function () { echo "B defer 2\n"; });
        try {
            throw new RuntimeException('x');
        } catch (RuntimeException $e) {
            echo "B caught\n";
        }
        echo "B body end\n";
    });
    echo "main after B\n";
});
?>
--EXPECT--
main after A started
B caught
B body end
B defer 2
B defer 1
main after B
A body end
A defer 3
A defer 2
A defer 1
