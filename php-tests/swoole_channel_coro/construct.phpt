--TEST--
swoole_channel_coro: new Channel($capacity): capacity property (default 1), empty, errCode SWOOLE_CHANNEL_OK
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Channel;

$a = new Channel();
$b = new Channel(16);
var_dump($a->capacity, $b->capacity);
var_dump($b->length(), $b->isEmpty(), $b->isFull());
var_dump($b->errCode === SWOOLE_CHANNEL_OK);
var_dump(SWOOLE_CHANNEL_OK, SWOOLE_CHANNEL_TIMEOUT, SWOOLE_CHANNEL_CLOSED);
var_dump(class_exists('Co\Channel') && new Co\Channel(2) instanceof Channel);
?>
--EXPECT--
int(1)
int(16)
int(0)
bool(true)
bool(false)
bool(true)
int(0)
int(-1)
int(-2)
bool(true)
