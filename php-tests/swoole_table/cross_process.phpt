--TEST--
swoole_table: rows written by a forked child are read by the parent and by a sibling, and the other way round
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/fork.inc';

use Swoole\Table;

$t = new Table(1024);
$t->column('id', Table::TYPE_INT);
$t->column('score', Table::TYPE_FLOAT);
$t->column('name', Table::TYPE_STRING, 32);
$t->create();
$t->set('from-parent', ['id' => 1, 'score' => 0.5, 'name' => 'parent']);

$writer = shm_fork(function () use ($t) {
    for ($i = 0; $i < 100; $i++) {
        $t->set("child-$i", ['id' => $i, 'score' => $i / 4, 'name' => "row $i"]);
    }
    $t->incr('from-parent', 'id', 41);
    $t->del('child-0');
});
var_dump(shm_wait([$writer]) === [$writer => 0]);

var_dump(count($t), $t->get('from-parent', 'id'), $t->get('child-99'), $t->exists('child-0'));

// A second child sees what the first one and the parent wrote, and iterates over all of it.
$reader = shm_fork(function () use ($t) {
    $n = 0;
    $sum = 0;
    foreach ($t as $key => $row) {
        $n++;
        $sum += $row['id'];
    }
    exit($n === 100 && $sum === 42 + array_sum(range(1, 99)) ? 0 : 3);
});
var_dump(shm_wait([$reader]) === [$reader => 0]);
?>
--EXPECT--
bool(true)
int(100)
int(42)
array(3) {
  ["id"]=>
  int(99)
  ["score"]=>
  float(24.75)
  ["name"]=>
  string(6) "row 99"
}
bool(false)
bool(true)
