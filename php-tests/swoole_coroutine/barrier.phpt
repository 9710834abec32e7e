--TEST--
swoole_coroutine: Barrier::make()/wait() returns once every coroutine holding the barrier has ended
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\Barrier;

Co\run(function () {
    $barrier = Barrier::make();
    $done = [];
    $t = microtime(true);
    foreach ([0.06, 0.02, 0.04] as $d) {
        go(function () use ($barrier, $d, &$done) {
            Coroutine::sleep($d);
            $done[] = $d;
        });
    }
    var_dump($barrier instanceof Barrier);
    Barrier::wait($barrier);
    $el = microtime(true) - $t;
    var_dump($done);
    var_dump($el >= 0.055 && $el < 0.5);
    var_dump($barrier);
});
?>
--EXPECT--
bool(true)
array(3) {
  [0]=>
  float(0.02)
  [1]=>
  float(0.04)
  [2]=>
  float(0.06)
}
bool(true)
NULL
