--TEST--
swoole_table: destroy() in one process destroys the table for every process sharing it
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/fork.inc';

use Swoole\Atomic;
use Swoole\Table;

$t = new Table(64);
$t->column('n', Table::TYPE_INT);
$t->create();
$t->set('a', ['n' => 1]);
$gate = new Atomic();
$seen = new Atomic(99);
$pid = shm_fork(function () use ($t, $gate, $seen) {
    $gate->wait(5);
    $seen->set(count($t) + $t->getSize() + $t->getMemorySize());
    $t->get('a');   // fatal: exit status 255
    exit(0);
});
var_dump($t->destroy(), count($t), $t->getSize(), $t->stats(), $t->size);
$gate->wakeup();
var_dump(shm_wait([$pid]), $seen->get());
?>
--EXPECTF--
bool(true)
int(0)
int(0)
bool(false)
int(64)

Fatal error: Swoole\Table::get(): table is not created or has been destroyed in %s on line %d
array(1) {
  [%d]=>
  int(255)
}
int(0)
