--TEST--
swoole_table: string columns round up to 8 bytes, cut longer values with a warning, keep binary data; column() errors
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Table;

$t = new Table(64);
var_dump($t->column('bad', Table::TYPE_STRING));
var_dump($t->column('bad', Table::TYPE_STRING, 0));
var_dump($t->column('bad', 9));
$t->column('s', Table::TYPE_STRING, 5);
$t->column('n', Table::TYPE_INT);
$t->create();
var_dump($t->column('late', Table::TYPE_INT));

var_dump($t->set('k', ['s' => 'world 123456789', 'n' => '12abc']));
var_dump($t->get('k'));
$bin = "\0\x01\xfe\xff\0ab";
$t->set('b', ['s' => $bin]);
var_dump($t->get('b', 's') === $bin);
// Updates touch only the given columns; null writes the zero value; unknown columns are ignored.
$t->set('k', ['n' => 5, 'zzz' => 1]);
var_dump($t->get('k'));
$t->set('k', ['s' => null]);
var_dump($t->get('k', 's'), $t->get('k', 'missing'));
// Non-string values are converted.
$t->set('c', ['s' => 3.5, 'n' => true]);
var_dump($t->get('c'));
?>
--EXPECTF--
Warning: Swoole\Table::column(): the length of string type values has to be more than zero in %s on line %d
bool(false)

Warning: Swoole\Table::column(): the length of string type values has to be more than zero in %s on line %d
bool(false)

Warning: Swoole\Table::column(): unknown column type in %s on line %d
bool(false)

Warning: Swoole\Table::column(): unable to add column after table has been created in %s on line %d
bool(false)

Warning: Swoole\Table::set(): [key=k,field=s]string value is too long in %s on line %d
bool(true)
array(2) {
  ["s"]=>
  string(8) "world 12"
  ["n"]=>
  int(12)
}
bool(true)
array(2) {
  ["s"]=>
  string(8) "world 12"
  ["n"]=>
  int(5)
}
string(0) ""
bool(false)
array(2) {
  ["s"]=>
  string(3) "3.5"
  ["n"]=>
  int(1)
}
