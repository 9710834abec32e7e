--TEST--
swoole_lock: a mutex whose holder died (SIGKILL, or exit without unlock) is taken over by the next locker
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../swoole_table/fork.inc';

use Swoole\Atomic;
use Swoole\Lock;

$m = new Lock(SWOOLE_MUTEX);
$held = new Atomic(0);
$pid = shm_fork(function () use ($m, $held) {
    $m->lock();
    $held->set(1);
    sleep(30);
});
while ($held->get() === 0) {
    usleep(1000);
}
var_dump($m->lock(LOCK_EX | LOCK_NB));
posix_kill($pid, SIGKILL);
shm_wait([$pid]);
$t = microtime(true);
var_dump($m->lock(LOCK_EX, 5), microtime(true) - $t < 1.0, $m->unlock());

// A child that exits normally while holding it.
$pid = shm_fork(function () use ($m) {
    $m->lock();
});
shm_wait([$pid]);
var_dump($m->lock(LOCK_EX, 5), $m->unlock());
?>
--EXPECT--
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
