--TEST--
swoole_channel_coro: a subclass whose constructor skips parent::__construct() gets Swoole\Error "must call constructor first" (also for other classes), other exceptions pass unchanged
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
class MyChan extends Swoole\Coroutine\Channel
{
    public function __construct()
    {
    }
}
class MyTable extends Swoole\Table
{
    public function __construct()
    {
    }
}
foreach ([fn() => (new MyChan())->length(), fn() => (new MyChan())->push(1), fn() => (new MyTable())->count()] as $f) {
    try {
        $f();
    } catch (Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
try {
    new Swoole\Coroutine\Channel(-1, 2);
} catch (Throwable $e) {
    echo get_class($e), "\n";
}
$c = new Swoole\Coroutine\Channel(1);
var_dump($c->length());
?>
--EXPECT--
Swoole\Error: must call constructor first
Swoole\Error: must call constructor first
Swoole\Error: must call constructor first
ArgumentCountError
int(0)
