--TEST--
swoole_channel_coro: after close() pop and push return false with errCode SWOOLE_CHANNEL_CLOSED; close twice is false
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Channel;

Co\run(function () {
    $ch = new Channel(2);
    var_dump($ch->close());
    var_dump($ch->push(1));
    var_dump($ch->errCode === SWOOLE_CHANNEL_CLOSED);
    var_dump($ch->pop());
    var_dump($ch->errCode === SWOOLE_CHANNEL_CLOSED);
    var_dump($ch->pop(0.5));
    var_dump($ch->errCode);
    var_dump($ch->close());
});
?>
--EXPECT--
bool(true)
bool(false)
bool(true)
bool(false)
bool(true)
bool(false)
int(-2)
bool(false)
