--TEST--
swoole_table: stats() counts inserts, updates (set and incr), deletes and free rows; getSize/getMemorySize/properties
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Table;

$t = new Table(200);
var_dump($t->size, $t->memorySize, $t->getSize(), $t->getMemorySize(), $t->stats());
$t->column('n', Table::TYPE_INT);
$t->create();
var_dump($t->size, $t->getSize(), $t->memorySize === $t->getMemorySize(), $t->getMemorySize() > 256 * 8);

for ($i = 0; $i < 50; $i++) {
    $t->set("k$i", ['n' => $i]);
}
for ($i = 0; $i < 10; $i++) {
    $t->set("k$i", ['n' => -$i]);
}
$t->incr('k1', 'n');
$t->incr('new', 'n');
$t->del('k2');
$t->del('k3');
$t->del('missing');
$s = $t->stats();
unset($s['conflict_count'], $s['conflict_max_level']);
print_r($s);
$t->destroy();
var_dump($t->size, $t->getSize(), $t->getMemorySize(), $t->count(), $t->stats());
?>
--EXPECT--
NULL
NULL
int(256)
int(0)
bool(false)
int(256)
int(256)
bool(true)
bool(true)
Array
(
    [num] => 49
    [insert_count] => 51
    [update_count] => 11
    [delete_count] => 2
    [available_slice_num] => 207
    [total_slice_num] => 256
)
int(256)
int(0)
int(0)
int(0)
bool(false)
