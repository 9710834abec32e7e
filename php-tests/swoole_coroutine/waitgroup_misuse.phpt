--TEST--
swoole_coroutine: WaitGroup misuse throws Swoole's LogicException subclasses; wait() with a zero count returns true even outside a coroutine
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$wg = new Swoole\Coroutine\WaitGroup();
var_dump($wg->wait());
try {
    (new Swoole\Coroutine\WaitGroup(1))->wait();
} catch (Swoole\Error $e) {
    echo get_class($e), ": ", $e->getMessage(), "\n";
}
Co\run(function () {
    $wg = new Swoole\Coroutine\WaitGroup();
    $show = function (callable $f) {
        try {
            $f();
            echo "no exception\n";
        } catch (LogicException $e) {
            echo get_class($e), ": ", $e->getMessage(), "\n";
        }
    };
    $show(fn () => $wg->add(-1));
    $wg->add(1);
    go(function () use ($wg, $show) {
        Co::sleep(0.01);
        $show(fn () => $wg->add(1));
        $show(fn () => $wg->wait());
        $wg->done();
    });
    var_dump($wg->wait());
    $show(fn () => $wg->done());
});
?>
--EXPECT--
bool(true)
Swoole\Error: API must be called in the coroutine
InvalidArgumentException: WaitGroup misuse: negative counter
BadMethodCallException: WaitGroup misuse: add called concurrently with wait
BadMethodCallException: WaitGroup misuse: reused before previous wait has returned
bool(true)
BadMethodCallException: WaitGroup misuse: negative counter
