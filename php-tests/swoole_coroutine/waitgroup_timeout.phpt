--TEST--
swoole_coroutine: WaitGroup::wait($timeout) returns false when the timeout passes first
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\WaitGroup;

Co\run(function () {
    $wg = new WaitGroup(1);
    go(function () use ($wg) {
        Coroutine::sleep(0.3);
        $wg->done();
    });
    $t = microtime(true);
    var_dump($wg->wait(0.1));
    $el = microtime(true) - $t;
    var_dump($el >= 0.09 && $el < 0.25);
    var_dump($wg->count());
    var_dump($wg->wait(1));
    var_dump($wg->count());
});
?>
--EXPECT--
bool(false)
bool(true)
int(1)
bool(true)
int(0)
