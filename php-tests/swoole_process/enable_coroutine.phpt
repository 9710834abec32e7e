--TEST--
swoole_process: enable_coroutine child (constructor and set()), a child forked after a Timer was set and from inside Co\run (the parent's timers and coroutines stay in the parent)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process;
use Swoole\Timer;

$p = new Process(function (Process $p) {
    $p->write('cid ' . Co::getCid());
}, false, 2, true);
$p->start();
echo $p->read(), "\n";
Process::wait();

$p = new Process(function (Process $p) {
    Co::sleep(0.01);
    go(fn() => $p->write('go in child, cid ' . Co::getCid()));
});
$p->set(['enable_coroutine' => true]);
$p->start();
echo $p->read(), "\n";
Process::wait();

// A timer of the parent, set before the fork: it must not fire in the child.
Timer::after(100, fn() => print("parent timer fired in " . (getmypid() === $GLOBALS['main'] ? 'parent' : 'CHILD') . "\n"));
$GLOBALS['main'] = getmypid();
$p = new Process(function (Process $p) {
    var_dump(iterator_to_array(Timer::list()));
    Timer::after(20, fn() => print("child's own timer\n"));
});
$p->start();
Process::wait();

// Forked inside Co\run: the child has its own scheduler and loop.
Co\run(function () {
    go(function () {
        Co::sleep(0.05);
        echo "parent coroutine after the child\n";
    });
    $p = new Process(function (Process $p) {
        echo "child cid before: ", Co::getCid(), "\n";
        Co\run(function () use ($p) {
            Co::sleep(0.01);
            $p->write('Co\run inside the child, cid ' . Co::getCid());
        });
    });
    $p->start();
    echo $p->read(), "\n";
    $w = Process::wait();
    echo "child code ", $w['code'], "\n";
});
?>
--EXPECT--
cid 1
go in child, cid 2
array(0) {
}
child's own timer
child cid before: -1
Co\run inside the child, cid 1
child code 0
parent coroutine after the child
parent timer fired in parent
