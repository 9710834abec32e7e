--TEST--
swoole_coroutine: join($cids) waits until every listed coroutine has ended and returns true
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    $log = [];
    $cids = [];
    foreach ([0.08, 0.02, 0.05] as $d) {
        $cids[] = go(function () use ($d, &$log) {
            Coroutine::sleep($d);
            $log[] = $d;
        });
    }
    $t = microtime(true);
    var_dump(Coroutine::join($cids, 2));
    $el = microtime(true) - $t;
    var_dump($log);
    var_dump($el >= 0.075 && $el < 0.5);
    foreach ($cids as $cid) {
        var_dump(Coroutine::exists($cid));
    }
    // only finished coroutines listed: nothing to wait for, false with SWOOLE_ERROR_INVALID_PARAMS
    var_dump(Coroutine::join($cids));
    var_dump(swoole_last_error() === SWOOLE_ERROR_INVALID_PARAMS);
});
?>
--EXPECT--
bool(true)
array(3) {
  [0]=>
  float(0.02)
  [1]=>
  float(0.05)
  [2]=>
  float(0.08)
}
bool(true)
bool(false)
bool(false)
bool(false)
bool(false)
bool(true)
