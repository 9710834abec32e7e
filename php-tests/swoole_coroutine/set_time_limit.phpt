--TEST--
swoole_coroutine: setTimeLimit() throws a Swoole\Coroutine\TimeoutException into a coroutine waiting past its limit (hooked sleep, channel pop)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\TimeoutException;

try {
    Coroutine::setTimeLimit(1.0); // outside a coroutine
} catch (Swoole\Error $e) {
    echo get_class($e), ": ", $e->getMessage(), "\n";
}
Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL);
$t0 = microtime(true);
Co\run(function () use ($t0) {
    go(function () {
        var_dump(Coroutine::setTimeLimit(0)); // 0: refused
        var_dump(Coroutine::setTimeLimit(0.5));
        usleep(100000);
        echo "short sleep done\n";
    });
    go(function () use ($t0) {
        Coroutine::setTimeLimit(0.2);
        try {
            sleep(2);
            echo "not reached\n";
        } catch (TimeoutException $e) {
            printf("hooked sleep: %s after %.1fs, line %d\n", get_class($e), microtime(true) - $t0, $e->getLine());
        }
    });
    go(function () {
        Coroutine::setTimeLimit(0.3);
        $ch = new Coroutine\Channel(1);
        try {
            $ch->pop();
        } catch (TimeoutException $e) {
            echo "pop: ", get_class($e), "\n";
        }
    });
});
var_dump((new ReflectionClass(TimeoutException::class))->isFinal(), get_parent_class(TimeoutException::class));
?>
--EXPECTF--
Swoole\Error: API must be called in the coroutine
bool(false)
bool(true)
short sleep done
hooked sleep: Swoole\Coroutine\TimeoutException after 0.2s, line 22
pop: Swoole\Coroutine\TimeoutException
bool(true)
string(9) "Exception"
