--TEST--
swoole_table: keys are strings of at most 63 bytes; longer keys warn in set() and are cut; int keys are converted
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Table;

$t = new Table(64);
$t->column('v', Table::TYPE_INT);
$t->create();

$k63 = str_repeat('a', 63);
var_dump($t->set($k63, ['v' => 63]), $t->get($k63, 'v'));

$k80 = str_repeat('b', 80);
var_dump($t->set($k80, ['v' => 80]));
// Stored under its first 63 bytes: found by the long key and by the cut one, listed under the cut one.
var_dump($t->get($k80, 'v'), $t->get(substr($k80, 0, 63), 'v'), $t->exists(substr($k80, 0, 62)));
foreach ($t as $key => $row) {
    echo strlen($key), " => {$row['v']}\n";
}

// Binary keys and int keys.
$bin = "\0\xff\x01key";
var_dump($t->set($bin, ['v' => 7]), $t->get($bin, 'v'));
var_dump($t->set(42, ['v' => 42]), $t->get('42', 'v'), $t->exists(42), $t->del(42), $t->exists('42'));
?>
--EXPECTF--
bool(true)
int(63)

Warning: Swoole\Table::set(): key[bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb] is too long in %s on line %d
bool(true)
int(80)
int(80)
bool(false)
%d => %d
%d => %d
bool(true)
int(7)
bool(true)
int(42)
bool(true)
bool(true)
bool(false)
