--TEST--
swoole_coroutine: Coroutine::cancel($cid, true) ends the wait with a Swoole\Coroutine\CanceledException in that coroutine
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\System;

Co\run(function () {
    $cid = go(function () {
        try {
            while (true) {
                System::sleep(0.01);
                echo "tick\n";
            }
        } catch (Swoole\Coroutine\CanceledException $e) {
            echo get_class($e), "\n";
        }
    });
    System::sleep(0.035);
    var_dump(Coroutine::cancel($cid, true));
    echo "end\n";
});
?>
--EXPECT--
tick
tick
tick
Swoole\Coroutine\CanceledException
bool(true)
end
