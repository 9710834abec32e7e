--TEST--
swoole_atomic: wait() blocks a process until another one calls wakeup(); timeouts; wakeup(n) wakes n waiters
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../swoole_table/fork.inc';

use Swoole\Atomic;

// Timeout with nobody waking us.
$a = new Atomic();
$t = microtime(true);
var_dump($a->wait(0.2));
$e = microtime(true) - $t;
var_dump($e >= 0.19 && $e < 1.0);

// A pending wakeup is consumed at once.
var_dump($a->wakeup(), $a->get(), $a->wait(0.01), $a->get());

// Cross-process: the child blocks until the parent wakes it 300 ms later.
$gate = new Atomic();
$elapsed = new Atomic();
$pid = shm_fork(function () use ($gate, $elapsed) {
    $t = microtime(true);
    $ok = $gate->wait(5);
    $elapsed->set((int) ((microtime(true) - $t) * 1000));
    exit($ok ? 0 : 4);
});
usleep(300000);
var_dump($gate->wakeup());
var_dump(shm_wait([$pid]) === [$pid => 0]);
$ms = $elapsed->get();
var_dump($ms >= 250 && $ms < 2000);

// wakeup(3) releases three of four waiters; the last one times out.
$gate = new Atomic();
$woken = new Atomic();
$pids = [];
for ($i = 0; $i < 4; $i++) {
    $pids[] = shm_fork(function () use ($gate, $woken) {
        if ($gate->wait(1.5)) {
            $woken->add();
        }
    });
}
usleep(300000);
// Each waiter consumes the wakeup value, so wake them one at a time as Swoole's counter semantics require.
for ($i = 0; $i < 3; $i++) {
    $gate->wakeup(1);
    $t = microtime(true);
    while ($gate->get() !== 0 && microtime(true) - $t < 2) {
        usleep(1000);
    }
}
shm_wait($pids, 5);
var_dump($woken->get());
?>
--EXPECT--
bool(false)
bool(true)
bool(true)
int(1)
bool(true)
int(0)
bool(true)
bool(true)
bool(true)
int(3)
