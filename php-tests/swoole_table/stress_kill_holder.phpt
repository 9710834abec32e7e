--TEST--
swoole_table: 8 processes incr one row and an Atomic; one is SIGKILLed while it holds the row lock, the rest finish
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/fork.inc';

use Swoole\Atomic;
use Swoole\Table;

const N = 100000;
const PROCS = 8;
const VICTIM = 7;
const VICTIM_DONE = 1000;

$table = new Table(64);
$table->column('n', Table::TYPE_INT);
$table->create();
$total = new Atomic(0);
$done = [];
for ($i = 0; $i < PROCS; $i++) {
    $done[$i] = new Atomic(0);
}

$pids = [];
$start = microtime(true);
for ($i = 0; $i < PROCS; $i++) {
    $pids[$i] = shm_fork(function () use ($i, $table, $total, $done) {
        if ($i === VICTIM) {
            // Test hook: after VICTIM_DONE row-lock acquisitions, the next one sleeps 60 s holding the lock.
            putenv('RSWOOLE_TEST_LOCK_HOLD=' . VICTIM_DONE . ':60000');
        }
        for ($k = 0; $k < N; $k++) {
            $table->incr('row', 'n');
            $total->add();
            $done[$i]->add();
        }
    });
}

// The victim has done its VICTIM_DONE increments and is inside the next one; wait until the row stops moving
// (everyone else is blocked on the lock it holds), then kill it.
$deadline = microtime(true) + 20;
while ($done[VICTIM]->get() < VICTIM_DONE && microtime(true) < $deadline) {
    usleep(1000);
}
// (The parent reads only the Atomics here: a get() on the row would queue behind the victim too.)
$progress = function () use ($done) {
    $s = 0;
    for ($i = 0; $i < PROCS; $i++) {
        $s += $done[$i]->get();
    }
    return $s;
};
$stuck = false;
while (!$stuck && microtime(true) < $deadline) {
    $a = $progress();
    usleep(300000);
    $stuck = $progress() === $a && $done[VICTIM]->get() === VICTIM_DONE;
}
posix_kill($pids[VICTIM], SIGKILL);
$victim = shm_wait([$pids[VICTIM]], 5);

// The other seven must finish (a wedged lock shows up as -2 here).
$others = array_values(array_diff_key($pids, [VICTIM => 0]));
$codes = shm_wait($others, 20);
// Printed only now, so the recovery warning (from a child's stderr) comes first.
var_dump($stuck, $victim[$pids[VICTIM]]);
var_dump(array_count_values($codes));

$expect = (PROCS - 1) * N + VICTIM_DONE;
var_dump($table->get('row', 'n') === $expect, $total->get() === $expect);
$per = [];
for ($i = 0; $i < PROCS; $i++) {
    $per[] = $done[$i]->get();
}
echo implode(',', $per), "\n";
// Still usable afterwards.
var_dump($table->incr('row', 'n'), $table->set('other', ['n' => 5]), $table->get('other', 'n'), count($table));
?>
--EXPECTF--
%Slock process[%d] not exists, force unlock
bool(true)
int(-1)
array(1) {
  [0]=>
  int(7)
}
bool(true)
bool(true)
100000,100000,100000,100000,100000,100000,100000,1000
int(701001)
bool(true)
int(5)
int(2)
