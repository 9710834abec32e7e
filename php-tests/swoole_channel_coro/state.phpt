--TEST--
swoole_channel_coro: length(), isEmpty(), isFull() and stats() (consumer_num, producer_num, queue_num) track the channel
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\Channel;

Co\run(function () {
    $ch = new Channel(2);
    $show = function () use ($ch) {
        echo 'len=', $ch->length(), ' empty=', (int) $ch->isEmpty(), ' full=', (int) $ch->isFull(),
            ' stats=', json_encode($ch->stats()), "\n";
    };
    $show();
    $ch->push('a');
    $show();
    $ch->push('b');
    $show();
    go(function () use ($ch) { $ch->push('c'); });
    go(function () use ($ch) { $ch->push('d'); });
    $show();
    $ch->pop();
    $ch->pop();
    Coroutine::sleep(0.01);
    $show();
    $ch->pop();
    $ch->pop();
    $show();
    go(function () use ($ch) { $ch->pop(); });
    $show();
    $ch->push('e');
    Coroutine::sleep(0.01);
    $show();
    var_dump($ch->capacity);
});
?>
--EXPECT--
len=0 empty=1 full=0 stats={"consumer_num":0,"producer_num":0,"queue_num":0}
len=1 empty=0 full=0 stats={"consumer_num":0,"producer_num":0,"queue_num":1}
len=2 empty=0 full=1 stats={"consumer_num":0,"producer_num":0,"queue_num":2}
len=2 empty=0 full=1 stats={"consumer_num":0,"producer_num":2,"queue_num":2}
len=2 empty=0 full=1 stats={"consumer_num":0,"producer_num":0,"queue_num":2}
len=0 empty=1 full=0 stats={"consumer_num":0,"producer_num":0,"queue_num":0}
len=0 empty=1 full=0 stats={"consumer_num":1,"producer_num":0,"queue_num":0}
len=0 empty=1 full=0 stats={"consumer_num":0,"producer_num":0,"queue_num":0}
int(2)
