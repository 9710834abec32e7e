--TEST--
swoole_coroutine: user code's own \Fiber (Revolt/AMPHP style) works inside coroutines: start/suspend/resume, coroutine switches while a Fiber runs, channels across, exceptions, nesting
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\Channel;

$log = [];
Co\run(function () use (&$log) {
    // A coroutine body is not a \Fiber (as in Swoole).
    var_dump(Fiber::getCurrent());

    // 1. start / suspend / resume inside a coroutine, values both ways.
    $f = new Fiber(function (int $x) {
        $y = Fiber::suspend($x + 1);
        $z = Fiber::suspend($y * 2);
        return $z . '!';
    });
    $a = $f->start(10);
    $b = $f->resume(5);
    $f->resume('done');
    var_dump($a, $b, $f->getReturn());

    // 2. Coroutine switches while a user Fiber runs: the Fiber sleeps (the
    //    coroutine waits inside it) and another coroutine runs meanwhile.
    $chan = new Channel(1);
    go(function () use ($chan, &$log) {
        $log[] = 'other: start';
        $chan->push('from other');
        $log[] = 'other: pushed';
    });
    $g = new Fiber(function () use ($chan, &$log) {
        $log[] = 'fiber: before sleep';
        Coroutine::sleep(0.01);
        $log[] = 'fiber: after sleep, cid ' . (Coroutine::getCid() > 0 ? 'ok' : 'bad');
        $v = $chan->pop();
        $log[] = "fiber: popped $v";
        $w = Fiber::suspend('suspended after switches');
        $log[] = "fiber: resumed with $w";
        Coroutine::sleep(0.01);
        return 'fiber result';
    });
    $log[] = 'co: ' . $g->start();
    var_dump($g->isSuspended());
    $g->resume('x');
    var_dump($g->getReturn());

    // 3. An exception thrown in the Fiber after a coroutine switch reaches
    //    the coroutine that resumed it.
    $h = new Fiber(function () {
        Coroutine::sleep(0.001);
        throw new RuntimeException('boom');
    });
    try {
        $h->start();
    } catch (RuntimeException $e) {
        var_dump($e->getMessage());
    }

    // 4. Two coroutines each driving their own Fiber, interleaved by sleeps.
    $out = [];
    $wg = new Coroutine\WaitGroup(2);
    foreach (['A', 'B'] as $name) {
        go(function () use ($name, &$out, $wg) {
            $fib = new Fiber(function () use ($name, &$out) {
                for ($i = 0; $i < 3; $i++) {
                    $out[] = "$name$i";
                    Coroutine::sleep(0.005);
                    Fiber::suspend();
                }
            });
            $fib->start();
            while (!$fib->isTerminated()) {
                $fib->resume();
            }
            $wg->done();
        });
    }
    $wg->wait();
    sort($out);
    echo implode(',', $out), "\n";

    // 5. A Fiber started in one coroutine cannot be resumed by another while
    //    it waits inside a coroutine switch.
    $k = new Fiber(function () { Coroutine::sleep(0.02); });
    go(function () use ($k) {
        $k->start();
        echo "k done\n";
    });
    try {
        $k->resume();
    } catch (FiberError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
});
echo implode("\n", $log), "\n";

// 6. A Fiber outside any coroutine that starts a coroutine; the coroutine
//    waits and later finishes from the loop, after the Fiber suspended.
$f = new Fiber(function () {
    go(function () {
        echo "co in fiber: start\n";
        Coroutine::sleep(0.01);
        echo "co in fiber: end\n";
    });
    echo "fiber: after go\n";
    Fiber::suspend();
    echo "fiber: resumed\n";
});
$f->start();
Swoole\Event::wait();
$f->resume();
echo "end\n";
?>
--EXPECT--
NULL
int(11)
int(10)
string(5) "done!"
bool(true)
string(12) "fiber result"
string(4) "boom"
A0,A1,A2,B0,B1,B2
FiberError: Cannot resume a fiber that is not suspended
k done
other: start
other: pushed
fiber: before sleep
fiber: after sleep, cid ok
fiber: popped from other
co: suspended after switches
fiber: resumed with x
co in fiber: start
fiber: after go
co in fiber: end
fiber: resumed
end
