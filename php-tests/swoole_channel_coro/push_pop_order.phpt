--TEST--
swoole_channel_coro: values come out in push order (FIFO) and keep their type; a popper waits for a pusher
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\Channel;

Co\run(function () {
    $ch = new Channel(1);
    go(function () use ($ch) {
        foreach ([1, 'two', [3], null, 5.5] as $v) {
            $ch->push($v);
        }
    });
    echo "consumer starts\n";
    for ($i = 0; $i < 5; $i++) {
        var_dump($ch->pop());
    }
    // a popper on an empty channel is woken by a later push
    go(function () use ($ch) {
        Coroutine::sleep(0.02);
        echo "late push\n";
        $ch->push('late');
    });
    var_dump($ch->pop());
});
?>
--EXPECT--
consumer starts
int(1)
string(3) "two"
array(1) {
  [0]=>
  int(3)
}
NULL
float(5.5)
late push
string(4) "late"
