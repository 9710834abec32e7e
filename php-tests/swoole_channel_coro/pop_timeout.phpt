--TEST--
swoole_channel_coro: pop($timeout) on an empty channel returns false after the timeout with errCode SWOOLE_CHANNEL_TIMEOUT
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Channel;

Co\run(function () {
    $ch = new Channel(2);
    $t = microtime(true);
    var_dump($ch->pop(0.1));
    $el = microtime(true) - $t;
    var_dump($ch->errCode === SWOOLE_CHANNEL_TIMEOUT);
    var_dump($el >= 0.09 && $el < 0.3);
    var_dump($ch->stats()['consumer_num']);
    // a value arriving before the timeout is returned
    go(function () use ($ch) {
        Co::sleep(0.03);
        $ch->push('in time');
    });
    var_dump($ch->pop(1));
});
?>
--EXPECT--
bool(false)
bool(true)
bool(true)
int(0)
string(7) "in time"
