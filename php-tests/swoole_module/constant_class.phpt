--TEST--
swoole_module: Swoole\Constant names the server options and events as Swoole 6.2.2 does
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Constant;

var_dump(Constant::OPTION_WORKER_NUM, Constant::EVENT_REQUEST, Constant::OPTION_ENABLE_COROUTINE);
var_dump(count((new ReflectionClass(Constant::class))->getConstants()));
// As a server option name, exactly as Swoole's own tests use it.
$s = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_BASE);
$s->set([Constant::OPTION_WORKER_NUM => 3, Constant::OPTION_MAX_WAIT_TIME => 1]);
var_dump($s->setting['worker_num'], $s->setting['max_wait_time']);
?>
--EXPECT--
string(10) "worker_num"
string(7) "request"
string(16) "enable_coroutine"
int(231)
int(3)
int(1)
