--TEST--
swoole_coroutine: every coroutine has its own ob_* stack; what a coroutine leaves buffered is flushed when it ends
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
ob_start();
echo "main buffered\n";
Co\run(function () {
    go(function () {
        ob_start();
        echo "A1 ";
        Co::sleep(0.02);
        echo "A2";
        $a = ob_get_clean();
        echo "A got [$a] level=", ob_get_level(), "\n";
    });
    go(function () {
        ob_start();
        echo "B1 ";
        Co::sleep(0.01);
        echo "B2";
        $b = ob_get_clean();
        echo "B got [$b] level=", ob_get_level(), "\n";
    });
    echo "run level=", ob_get_level(), "\n";
    go(function () {
        ob_start();
        echo "left open\n";
    });
});
$m = ob_get_clean();
echo "main got [", trim($m), "] level=", ob_get_level(), "\n";
?>
--EXPECT--
run level=0
left open
B got [B1 B2] level=0
A got [A1 A2] level=0
main got [main buffered] level=0
