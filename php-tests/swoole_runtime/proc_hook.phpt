--TEST--
swoole_runtime: SWOOLE_HOOK_PROC: proc_open() in a coroutine gives a process/coroutine resource that proc_get_status/proc_terminate/proc_close accept; one freed without proc_close goes to PHP's destructor; outside a coroutine it stays PHP's
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL);
$php = PHP_BINARY;
Co\run(function () use ($php) {
    $p = proc_open([$php, '-n', '-r', 'echo fgets(STDIN);'], [0 => ['pipe', 'r'], 1 => ['pipe', 'w']], $pipes);
    var_dump(get_resource_type($p));
    fwrite($pipes[0], "hello\n");
    fclose($pipes[0]);
    var_dump(stream_get_contents($pipes[1]));
    fclose($pipes[1]);
    var_dump(proc_close($p));

    $q = proc_open([$php, '-n', '-r', 'sleep(10);'], [], $pipes);
    var_dump(proc_get_status($q)['running']);
    var_dump(proc_terminate($q, SIGKILL));
    var_dump(proc_close($q) !== 0);

    // Dropped without proc_close(): PHP's destructor still reaps it.
    $r = proc_open([$php, '-n', '-r', 'exit(3);'], [], $pipes);
    unset($r);
    echo "dropped\n";
});
$p = proc_open([$php, '-n', '-r', 'exit(0);'], [], $pipes);
var_dump(get_resource_type($p), proc_close($p));
?>
--EXPECT--
string(17) "process/coroutine"
string(6) "hello
"
int(0)
bool(true)
bool(true)
bool(true)
dropped
string(7) "process"
int(0)
