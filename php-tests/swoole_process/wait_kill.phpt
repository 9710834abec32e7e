--TEST--
swoole_process: wait() exit codes and signals, exit(), a fatal and an uncaught exception in the child (255), kill() liveness check
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process;

function run(callable $fn): array {
    $p = new Process($fn, false, 0);
    $pid = $p->start();
    $w = Process::wait(true);
    return [$w['pid'] === $pid, $w['code'], $w['signal']];
}
echo json_encode(run(function () {})), "\n";
echo json_encode(run(function () { exit(7); })), "\n";
echo json_encode(run(function (Process $p) { $p->exit(9); echo "not reached\n"; })), "\n";
echo json_encode(run(function () { posix_kill(getmypid(), SIGKILL); })), "\n";
echo json_encode(run(function () { throw new RuntimeException("child exception"); })), "\n";
echo json_encode(run(function () { undefined_function_xyz(); })), "\n";
echo json_encode(run(function () { ini_set('memory_limit', '8M'); $a = str_repeat('x', 32 << 20); })), "\n";

// kill($pid, 0): liveness, without a warning for a process that is gone.
$p = new Process(function () { sleep(10); }, false, 0);
$pid = $p->start();
var_dump(Process::kill($pid, 0));
var_dump(Process::kill($pid, SIGTERM));
$w = Process::wait();
var_dump($w['signal'] === SIGTERM);
var_dump(Process::kill($pid, 0));
// no child left
var_dump(Process::wait(false), Process::wait(true));
?>
--EXPECTF--
[true,0,0]
[true,7,0]
[true,9,0]
[true,0,9]

Fatal error: Uncaught RuntimeException: child exception in %s:%d
Stack trace:
#0 [internal function]: {closure}(Object(Swoole\Process))
#1 %s(%d): Swoole\Process->start()
#2 %s(%d): run(Object(Closure))
#3 {main}
  thrown in %s on line %d
[true,255,0]

Fatal error: Uncaught Error: Call to undefined function undefined_function_xyz() in %s:%d
Stack trace:
#0 [internal function]: {closure}(Object(Swoole\Process))
#1 %s(%d): Swoole\Process->start()
#2 %s(%d): run(Object(Closure))
#3 {main}
  thrown in %s on line %d
[true,255,0]

Fatal error: Allowed memory size of %d bytes exhausted (tried to allocate %d bytes) in %s on line %d
[true,255,0]
bool(true)
bool(true)
bool(true)
bool(false)
bool(false)
bool(false)
