--TEST--
swoole_table: Iterator and Countable: foreach, rewind/valid/current/key/next, count()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Table;

$t = new Table(128);
$t->column('n', Table::TYPE_INT);
$t->column('s', Table::TYPE_STRING, 16);
$t->create();
var_dump($t instanceof Iterator, $t instanceof Countable, count($t));
foreach ($t as $k => $v) {
    echo "never\n";
}
$t->rewind();
var_dump($t->valid(), $t->current(), $t->key());

for ($i = 0; $i < 100; $i++) {
    $t->set("k$i", ['n' => $i, 's' => "v$i"]);
}
$seen = [];
foreach ($t as $k => $row) {
    $seen[$k] = $row;
}
ksort($seen, SORT_NATURAL);
var_dump(count($seen), count($t), $t->count(), array_key_first($seen), $seen['k57']);
var_dump(array_sum(array_column($seen, 'n')) === array_sum(range(0, 99)));

// By hand, twice (rewind starts over).
for ($round = 0; $round < 2; $round++) {
    $n = 0;
    for ($t->rewind(); $t->valid(); $t->next()) {
        $row = $t->current();
        if ($row['s'] !== 'v' . $row['n'] || $t->key() !== 'k' . $row['n']) {
            echo "mismatch\n";
        }
        $n++;
    }
    echo "round $round: $n\n";
}
var_dump($t->valid(), $t->current(), $t->key());
var_dump(iterator_count($t));
?>
--EXPECT--
bool(true)
bool(true)
int(0)
bool(false)
NULL
NULL
int(100)
int(100)
int(100)
string(2) "k0"
array(2) {
  ["n"]=>
  int(57)
  ["s"]=>
  string(3) "v57"
}
bool(true)
round 0: 100
round 1: 100
bool(false)
NULL
NULL
int(100)
