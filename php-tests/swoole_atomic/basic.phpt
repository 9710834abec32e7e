--TEST--
swoole_atomic: add/sub/get/set/cmpset; Atomic is unsigned 32-bit, Atomic\Long signed 64-bit
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Atomic;

$a = new Atomic();
var_dump($a->get(), $a->add(), $a->add(9), $a->sub(3), $a->sub());
var_dump($a->sub(7), $a->add(1));            // wraps around 2^32
var_dump((new Atomic(-1))->get(), (new Atomic(2 ** 32 + 5))->get());
$a->set(100);
var_dump($a->cmpset(99, 1), $a->get(), $a->cmpset(100, 1), $a->get());

$l = new Atomic\Long(-10);
var_dump($l->get(), $l->add(15), $l->sub(), $l->sub(20));
$l->set(PHP_INT_MAX);
var_dump($l->add(), $l->cmpset(PHP_INT_MIN, 0), $l->get());
?>
--EXPECT--
int(0)
int(1)
int(10)
int(7)
int(6)
int(4294967295)
int(0)
int(4294967295)
int(5)
bool(false)
int(100)
bool(true)
int(1)
int(-10)
int(5)
int(4)
int(-16)
int(-9223372036854775808)
bool(true)
int(0)
