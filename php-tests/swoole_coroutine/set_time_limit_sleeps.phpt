--TEST--
swoole_coroutine: setTimeLimit($seconds) ends the coroutine's wait then in progress (Co::sleep or a hooked sleep) with a final Swoole\Coroutine\TimeoutException; false for 0
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$r = new ReflectionClass(Swoole\Coroutine\TimeoutException::class);
var_dump($r->isFinal(), get_parent_class(Swoole\Coroutine\TimeoutException::class));
Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_SLEEP);
Co\run(function () {
    var_dump(Swoole\Coroutine::setTimeLimit(0));
    foreach (['hooked' => fn () => sleep(5), 'Co::sleep' => fn () => Co::sleep(5)] as $name => $wait) {
        go(function () use ($name, $wait) {
            $t = microtime(true);
            Swoole\Coroutine::setTimeLimit(1);
            try {
                $wait();
                echo "$name: not interrupted\n";
            } catch (Swoole\Coroutine\TimeoutException $e) {
                printf("%s: %s after ~%d s\n", $name, get_class($e), round(microtime(true) - $t));
            }
        });
    }
});
?>
--EXPECT--
bool(true)
string(9) "Exception"
bool(false)
hooked: Swoole\Coroutine\TimeoutException after ~1 s
Co::sleep: Swoole\Coroutine\TimeoutException after ~1 s
