--TEST--
swoole_coroutine: WaitGroup add()/done()/wait() waits for every worker coroutine
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\WaitGroup;

Co\run(function () {
    $wg = new WaitGroup();
    $results = [];
    $t = microtime(true);
    for ($i = 1; $i <= 4; $i++) {
        $wg->add();
        go(function () use ($wg, $i, &$results) {
            Coroutine::sleep(0.02 * (5 - $i));
            $results[] = $i;
            $wg->done();
        });
    }
    $wg->add(2);
    go(function () use ($wg, &$results) {
        Coroutine::sleep(0.01);
        $results[] = 'two';
        $wg->done();
        $wg->done();
    });
    var_dump($wg->count());
    var_dump($wg->wait());
    $el = microtime(true) - $t;
    echo implode(',', $results), "\n";
    var_dump($wg->count(), $el >= 0.075 && $el < 0.5);
    // nothing pending: returns at once
    var_dump($wg->wait(0.5));
});
?>
--EXPECT--
int(6)
bool(true)
two,4,3,2,1
int(0)
bool(true)
bool(true)
