--TEST--
swoole_coroutine: a destructor may start a coroutine and wait (as in Swoole); one run by the cycle collector still may not (go() starts on the next round, a wait throws PHP's FiberError)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
class A
{
    public $self;
    public function __construct(public string $name) {}
    public function __destruct()
    {
        echo "{$this->name} dtor start\n";
        go(function () {
            echo "{$this->name} in go\n";
            Co::sleep(0.01);
            echo "{$this->name} go after sleep\n";
        });
        try {
            Co::sleep(0.02);
            echo "{$this->name} slept in dtor\n";
        } catch (FiberError $e) {
            echo get_class($e), ": ", $e->getMessage(), "\n";
        }
        echo "{$this->name} dtor end\n";
    }
}
Co\run(function () {
    $a = new A('plain');
    unset($a);
    echo "after unset\n";
    $b = new A('cycle');
    $b->self = $b;
    unset($b);
    gc_collect_cycles();
    echo "after gc\n";
    Co::sleep(0.1);
    echo "main done\n";
});
?>
--EXPECT--
plain dtor start
plain in go
plain go after sleep
plain slept in dtor
plain dtor end
after unset
cycle dtor start
FiberError: Cannot switch fibers in current execution context
cycle dtor end
after gc
cycle in go
cycle go after sleep
main done
