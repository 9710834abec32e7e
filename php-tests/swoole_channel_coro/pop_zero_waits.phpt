--TEST--
swoole_channel_coro: a timeout of 0 (or below) waits without a limit, as in Swoole; Co::getElapsed() of an unknown cid is -1; Timer::info() of after() has interval 0
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
Co\run(function () {
    $c = new Swoole\Coroutine\Channel(1);
    go(function () use ($c) {
        Co::sleep(0.05);
        $c->push('late');
        Co::sleep(0.05);
        $c->push('later');
    });
    $t = microtime(true);
    var_dump($c->pop(0));
    var_dump($c->pop(-0.5));
    var_dump(microtime(true) - $t >= 0.09);
    var_dump(Co::getElapsed(-1), Co::getElapsed(999999), Co::getElapsed() >= 90);
    $id = Swoole\Timer::after(1000, function () {});
    var_dump(Swoole\Timer::info($id)['interval']);
    Swoole\Timer::clear($id);
});
?>
--EXPECT--
string(4) "late"
string(5) "later"
bool(true)
int(-1)
int(-1)
bool(true)
int(0)
