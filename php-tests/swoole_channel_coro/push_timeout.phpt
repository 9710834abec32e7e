--TEST--
swoole_channel_coro: push($data, $timeout) on a full channel returns false after the timeout, errCode SWOOLE_CHANNEL_TIMEOUT
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Channel;

Co\run(function () {
    $ch = new Channel(1);
    var_dump($ch->push('a', 0.1));
    $t = microtime(true);
    var_dump($ch->push('b', 0.1));
    $el = microtime(true) - $t;
    var_dump($ch->errCode === SWOOLE_CHANNEL_TIMEOUT);
    var_dump($el >= 0.09 && $el < 0.3);
    var_dump($ch->length(), $ch->stats()['producer_num']);
    // room made before the timeout: the push succeeds
    $got = null;
    go(function () use ($ch, &$got) {
        Co::sleep(0.03);
        $got = $ch->pop();
    });
    var_dump($ch->push('c', 1));
    Co::sleep(0.01);
    var_dump($got, $ch->pop());
});
?>
--EXPECT--
bool(true)
bool(false)
bool(true)
bool(true)
int(1)
int(0)
bool(true)
string(1) "a"
string(1) "c"
