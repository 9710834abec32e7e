--TEST--
swoole_channel_coro: push() does not wait until the channel holds capacity items; the next push waits for a pop
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\Channel;

Co\run(function () {
    $ch = new Channel(3);
    go(function () use ($ch) {
        for ($i = 1; $i <= 5; $i++) {
            $ch->push($i);
            echo "pushed $i (length ", $ch->length(), ")\n";
        }
        echo "producer done\n";
    });
    echo "main: producer is blocked, length ", $ch->length(), ", full ", var_export($ch->isFull(), true), "\n";
    Coroutine::sleep(0.02);
    // each pop frees one slot; the blocked producer gets to push once more (give it a moment to run)
    for ($i = 0; $i < 2; $i++) {
        $v = $ch->pop();
        Coroutine::sleep(0.02);
        echo "main: popped $v\n";
    }
    while (!$ch->isEmpty()) {
        $v = $ch->pop();
        echo "main: popped $v\n";
    }
});
?>
--EXPECT--
pushed 1 (length 1)
pushed 2 (length 2)
pushed 3 (length 3)
main: producer is blocked, length 3, full true
pushed 4 (length 3)
main: popped 1
pushed 5 (length 3)
producer done
main: popped 2
main: popped 3
main: popped 4
main: popped 5
