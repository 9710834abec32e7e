--TEST--
swoole_coroutine: Co\run whose only coroutine pops an empty channel forever prints the deadlock report and returns
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$popped = false;
$t = microtime(true);
$r = Co\run(function () use (&$popped) {
    $ch = new Swoole\Coroutine\Channel(1);
    echo "waiting on an empty channel\n";
    $ch->pop();
    $popped = true;
});
echo "Co\\run returned\n";
var_dump($popped);
var_dump(microtime(true) - $t < 2);
?>
--EXPECTF--
waiting on an empty channel
%A[FATAL ERROR]: all coroutines (count: 1) are asleep - deadlock!
%A
Co\run returned
bool(false)
bool(true)%A
