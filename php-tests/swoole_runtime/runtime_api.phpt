--TEST--
swoole_runtime: Runtime::enableCoroutine()/setHookFlags()/getHookFlags(); hooked functions outside a coroutine behave as PHP's; enableCoroutine(false) and flags 0 restore the originals; a first Co\run() turns on SWOOLE_HOOK_ALL
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
function timed(callable $fn): float { $t = microtime(true); $fn(); return microtime(true) - $t; }
/** Seconds for 5 coroutines each sleeping 0.2 s through sleep-family function $f. */
function five(callable $f): float {
    return timed(fn() => Co\run(function () use ($f) { for ($i = 0; $i < 5; $i++) go($f); }));
}
$us = fn() => usleep(200000);
var_dump(Swoole\Runtime::getHookFlags());
// As Swoole's: a first Co\run() with no flags chosen turns on SWOOLE_HOOK_ALL.
printf("Co\\run() default: %s, flags after: %s\n", five($us) < 0.5 ? 'concurrent' : 'serial', var_export(Swoole\Runtime::getHookFlags() === SWOOLE_HOOK_ALL, true));
Swoole\Runtime::setHookFlags(0);
printf("unhooked: %s\n", five($us) >= 0.95 ? 'serial' : 'concurrent');
var_dump(Swoole\Runtime::enableCoroutine());
var_dump(Swoole\Runtime::getHookFlags() === SWOOLE_HOOK_ALL);
printf("enableCoroutine(): %s\n", five($us) < 0.5 ? 'concurrent' : 'serial');
printf("time_nanosleep: %s\n", five(fn() => time_nanosleep(0, 200000000)) < 0.5 ? 'concurrent' : 'serial');
// Outside a coroutine: PHP's own behaviour, return values and errors.
printf("outside: %s %s\n", var_export(sleep(0), true), timed(fn() => usleep(200000)) >= 0.19 ? 'blocked' : 'did not block');
try { sleep(-1); } catch (ValueError $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
Co\run(function () {
    try { sleep(-1); } catch (ValueError $e) { echo 'in coroutine: ', $e->getMessage(), "\n"; }
    var_dump(@time_sleep_until(microtime(true) - 1));
});
var_dump(Swoole\Runtime::enableCoroutine(false));
var_dump(Swoole\Runtime::getHookFlags());
printf("enableCoroutine(false): %s\n", five($us) >= 0.95 ? 'serial' : 'concurrent');
var_dump(Swoole\Runtime::setHookFlags(SWOOLE_HOOK_SLEEP));
var_dump(Swoole\Runtime::getHookFlags() === SWOOLE_HOOK_SLEEP);
printf("setHookFlags(SLEEP): %s\n", five($us) < 0.5 ? 'concurrent' : 'serial');
var_dump(Swoole\Runtime::setHookFlags(SWOOLE_HOOK_TCP));
printf("setHookFlags(TCP): sleep %s\n", five($us) >= 0.95 ? 'serial' : 'concurrent');
var_dump(Swoole\Runtime::setHookFlags(0));
var_dump(Swoole\Runtime::getHookFlags());
?>
--EXPECT--
int(0)
Co\run() default: concurrent, flags after: true
unhooked: serial
bool(true)
bool(true)
enableCoroutine(): concurrent
time_nanosleep: concurrent
outside: 0 blocked
ValueError: sleep(): Argument #1 ($seconds) must be greater than or equal to 0
in coroutine: sleep(): Argument #1 ($seconds) must be greater than or equal to 0
bool(false)
bool(true)
int(0)
enableCoroutine(false): serial
bool(true)
bool(true)
setHookFlags(SLEEP): concurrent
bool(true)
setHookFlags(TCP): sleep serial
bool(true)
int(0)
