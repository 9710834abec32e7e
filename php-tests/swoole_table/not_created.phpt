--TEST--
swoole_table: using a table before create() is a fatal error, as in Swoole
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$t = new Swoole\Table(64);
$t->column('n', Swoole\Table::TYPE_INT);
var_dump(count($t), $t->getMemorySize());
$t->get('x');
echo "not reached\n";
?>
--EXPECTF--
int(0)
int(0)

Fatal error: Swoole\Table::get(): table is not created or has been destroyed in %s on line %d
