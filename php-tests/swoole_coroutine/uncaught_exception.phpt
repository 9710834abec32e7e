--TEST--
swoole_coroutine: an uncaught exception in a coroutine in CLI is PHP's "Uncaught Exception" fatal error; the script stops
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    go(function () {
        Coroutine::sleep(0.01);
        echo "other coroutine still running\n";
        Coroutine::sleep(0.2);
        echo "never: after the fatal error\n";
    });
    go(function () {
        Coroutine::sleep(0.05);
        echo "child throws\n";
        throw new Exception('boom in coroutine');
    });
    echo "main continues\n";
});
echo "never: after Co\\run\n";
?>
--EXPECTF--
main continues
other coroutine still running
child throws

Fatal error: Uncaught Exception: boom in coroutine in %s:%d
Stack trace:
#0 %A
  thrown in %s on line %d
