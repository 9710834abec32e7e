--TEST--
swoole_atomic: 4 processes add to one Atomic and one Atomic\Long concurrently; no update is lost
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../swoole_table/fork.inc';

$a = new Swoole\Atomic(0);
$l = new Swoole\Atomic\Long(0);
$pids = [];
for ($p = 0; $p < 4; $p++) {
    $pids[] = shm_fork(function () use ($a, $l) {
        for ($i = 0; $i < 50000; $i++) {
            $a->add();
            $l->sub(2);
        }
    });
}
var_dump(array_sum(shm_wait($pids)));
var_dump($a->get(), $l->get());
?>
--EXPECT--
int(0)
int(200000)
int(-400000)
