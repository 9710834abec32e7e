--TEST--
swoole_table: a table of size N holds exactly N rows whatever the keys; set() on a full table warns with the size and returns false
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Table;

foreach ([64, 1024] as $n) {
    $t = new Table($n);
    $t->column('v', Table::TYPE_INT);
    $t->create();
    $ok = 0;
    for ($i = 0; $i < $n; $i++) {
        $ok += $t->set(md5("key $i"), ['v' => $i]) ? 1 : 0;
    }
    echo "$n: $ok stored, count ", count($t), "\n";
    var_dump($t->set('one-too-many', ['v' => -1]));
    var_dump($t->incr('one-too-many', 'v'));
    // Updating an existing row still works on a full table, and nothing was corrupted.
    var_dump($t->set(md5('key 0'), ['v' => 1000]));
    $bad = 0;
    for ($i = 1; $i < $n; $i++) {
        $bad += $t->get(md5("key $i"), 'v') === $i ? 0 : 1;
    }
    echo "bad rows: $bad\n";
    var_dump($t->del(md5('key 5')), $t->set('one-too-many', ['v' => -1]), count($t));
    $s = $t->stats();
    echo "available {$s['available_slice_num']} of {$s['total_slice_num']}\n";
}
?>
--EXPECTF--
64: 64 stored, count 64

Warning: Swoole\Table::set(): failed to set('one-too-many'), unable to allocate memory: the table is full (size=64) in %s on line %d
bool(false)

Warning: Swoole\Table::incr(): unable to allocate memory: the table is full (size=64) in %s on line %d
bool(false)
bool(true)
bad rows: 0
bool(true)
bool(true)
int(64)
available 0 of 64
1024: 1024 stored, count 1024

Warning: Swoole\Table::set(): failed to set('one-too-many'), unable to allocate memory: the table is full (size=1024) in %s on line %d
bool(false)

Warning: Swoole\Table::incr(): unable to allocate memory: the table is full (size=1024) in %s on line %d
bool(false)
bool(true)
bad rows: 0
bool(true)
bool(true)
int(1024)
available 0 of 1024
