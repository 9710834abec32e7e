--TEST--
swoole_coroutine: Co\run returns only after every coroutine it started has finished, and returns true
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

$t = microtime(true);
$r = Co\run(function () {
    go(function () {
        Coroutine::sleep(0.1);
        echo "child 100ms done\n";
        go(function () {
            Coroutine::sleep(0.05);
            echo "grandchild started late done\n";
        });
    });
    go(function () {
        Coroutine::sleep(0.05);
        echo "child 50ms done\n";
    });
    echo "main done\n";
});
$el = microtime(true) - $t;
echo "run returned\n";
var_dump($r);
var_dump($el >= 0.14 && $el < 1.0);
var_dump(Coroutine::getCid());
?>
--EXPECT--
main done
child 50ms done
child 100ms done
grandchild started late done
run returned
bool(true)
bool(true)
int(-1)
