--TEST--
swoole_server: task() before start() warns "server is not running" once-prefixed, as Swoole does
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$s = new Swoole\Server('127.0.0.1', 0);
$s->set(['task_worker_num' => 1]);
var_dump($s->task('x'));
?>
--EXPECTF--
Warning: Swoole\Server::task(): server is not running in %s on line %d
bool(false)
