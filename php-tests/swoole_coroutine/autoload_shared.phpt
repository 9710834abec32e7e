--TEST--
swoole_coroutine: an autoloader that switches coroutines loads a class once; the other coroutines asking for it wait and get it
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$calls = 0;
spl_autoload_register(function ($class) use (&$calls) {
    $calls++;
    Co::sleep(0.01); // another coroutine runs while this one loads
    if ($class === 'LazyThing') {
        eval('class LazyThing { public $n = 42; }');
    }
    if ($class === 'SelfRef') {
        // Asked again by its own autoloader: not found, as PHP's guard says.
        var_dump(class_exists('SelfRef'));
    }
});
Co\run(function () {
    for ($i = 0; $i < 3; $i++) {
        go(function () use ($i) {
            $o = new LazyThing();
            echo "coroutine $i got ", get_class($o), " ", $o->n, "\n";
        });
    }
    go(function () {
        var_dump(class_exists('NoSuchThing'));
    });
    go(function () {
        var_dump(class_exists('NoSuchThing'));
    });
});
echo "autoloader calls: $calls\n";
Co\run(function () {
    var_dump(class_exists('SelfRef'));
});
?>
--EXPECT--
coroutine 1 got LazyThing 42
coroutine 2 got LazyThing 42
coroutine 0 got LazyThing 42
bool(false)
bool(false)
autoloader calls: 2
bool(false)
bool(false)
