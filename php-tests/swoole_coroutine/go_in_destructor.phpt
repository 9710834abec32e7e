--TEST--
swoole_coroutine: go() inside a destructor starts the coroutine on the next loop round (PHP forbids switching fibers there); a wait there throws PHP's FiberError instead of breaking the scheduler
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
class A
{
    public function __destruct()
    {
        echo "dtor start\n";
        go(function () {
            echo "in go\n";
            Co::sleep(0.01);
            echo "go after sleep\n";
        });
        try {
            Co::sleep(0.01);
        } catch (FiberError $e) {
            echo get_class($e), ": ", $e->getMessage(), "\n";
        }
        echo "dtor end\n";
    }
}
Co\run(function () {
    $a = new A();
    unset($a);
    echo "after unset\n";
    Co::sleep(0.1);
    echo "main done\n";
});
?>
--EXPECT--
dtor start
FiberError: Cannot switch fibers in current execution context
dtor end
after unset
in go
go after sleep
main done
