--TEST--
swoole_table: incr/decr on int and float columns, defaults, new rows, wrong columns
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Table;

$t = new Table(64);
$t->column('i', Table::TYPE_INT);
$t->column('f', Table::TYPE_FLOAT);
$t->column('s', Table::TYPE_STRING, 8);
$t->create();

var_dump($t->incr('a', 'i'), $t->incr('a', 'i', 10), $t->decr('a', 'i', 3), $t->decr('a', 'i'));
var_dump($t->incr('a', 'f'), $t->incr('a', 'f', 0.25), $t->decr('a', 'f', 2), $t->incr('a', 'i', 2.9));
var_dump($t->decr('fresh', 'i', 5), $t->get('fresh'));
var_dump($t->incr('a', 'i', PHP_INT_MAX), $t->incr('a', 'i', 1) < 0);
var_dump($t->incr('a', 's'));
var_dump($t->decr('a', 'nope'));
var_dump($t->incr(7, 'i', 7), $t->get('7', 'i'));
?>
--EXPECTF--
int(1)
int(11)
int(8)
int(7)
float(1)
float(1.25)
float(-0.75)
int(9)
int(-5)
array(3) {
  ["i"]=>
  int(-5)
  ["f"]=>
  float(0)
  ["s"]=>
  string(0) ""
}
int(-9223372036854775800)
bool(true)

Warning: Swoole\Table::incr(): can't execute 'incr' on a string type column in %s on line %d
bool(false)

Warning: Swoole\Table::decr(): column[nope] does not exist in %s on line %d
bool(false)
int(7)
int(7)
