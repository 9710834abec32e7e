--TEST--
swoole_runtime: SWOOLE_HOOK_PROC: in a coroutine, a descriptor spec item that is neither an array nor a stream gives Swoole's warning and false (PHP 8 throws a ValueError outside)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL);
Co\run(function () {
    var_dump(proc_open('true', [0 => 1], $pipes));
    $p = proc_open('true', [1 => ['pipe', 'w']], $pipes);
    var_dump(is_resource($p), proc_close($p));
});
try {
    proc_open('true', [0 => 1], $pipes);
} catch (ValueError $e) {
    echo get_class($e), "\n";
}
?>
--EXPECTF--
Warning: proc_open(): Descriptor item must be either an array or a File-Handle in %s on line %d
bool(false)
bool(true)
int(0)
ValueError
