--TEST--
swoole_lock: a mutex (and a spin lock) excludes 4 processes doing an unprotected read-modify-write; rwlock readers overlap
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../swoole_table/fork.inc';

use Swoole\Atomic\Long;
use Swoole\Lock;

foreach ([SWOOLE_MUTEX, SWOOLE_SPINLOCK, SWOOLE_RWLOCK] as $type) {
    $lock = new Lock($type);
    $counter = new Long(0);
    $pids = [];
    for ($p = 0; $p < 4; $p++) {
        $pids[] = shm_fork(function () use ($lock, $counter) {
            for ($i = 0; $i < 5000; $i++) {
                $lock->lock();
                // get + set is not atomic: without mutual exclusion updates get lost.
                $v = $counter->get();
                if ($i % 64 === 0) {
                    usleep(10);
                }
                $counter->set($v + 1);
                $lock->unlock();
            }
        });
    }
    var_dump(array_sum(shm_wait($pids, 30)), $counter->get());
}

// Shared (read) locks are held by two processes at once: 2 x 300 ms takes well under 600 ms.
$rw = new Lock(SWOOLE_RWLOCK);
$t = microtime(true);
$pids = [];
for ($p = 0; $p < 2; $p++) {
    $pids[] = shm_fork(function () use ($rw) {
        $rw->lock(LOCK_SH);
        usleep(300000);
        $rw->unlock();
    });
}
shm_wait($pids);
var_dump(microtime(true) - $t < 0.55);

// An exclusive lock held by the parent blocks a child until the parent unlocks.
$m = new Lock();
$m->lock();
$waited = new Long(0);
$pid = shm_fork(function () use ($m, $waited) {
    $t = microtime(true);
    $m->lock();
    $waited->set((int) ((microtime(true) - $t) * 1000));
    $m->unlock();
});
usleep(300000);
$m->unlock();
shm_wait([$pid]);
var_dump($waited->get() >= 250);
?>
--EXPECT--
int(0)
int(20000)
int(0)
int(20000)
int(0)
int(20000)
bool(true)
bool(true)
