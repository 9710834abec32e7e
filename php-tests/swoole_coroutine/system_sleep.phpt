--TEST--
swoole_coroutine: Swoole\Coroutine\System::sleep() suspends only its coroutine (50 x 0.1 s in < 0.5 s)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\System;

$done = 0;
$rets = [];
$order = [];
$t = microtime(true);
Co\run(function () use (&$done, &$rets, &$order) {
    for ($i = 0; $i < 50; $i++) {
        go(function () use (&$done, &$rets) {
            $rets[] = System::sleep(0.1);
            $done++;
        });
    }
    go(function () use (&$order) { System::sleep(0.03); $order[] = 'short'; });
    go(function () use (&$order) { System::sleep(0.01); $order[] = 'shorter'; });
});
$el = microtime(true) - $t;
var_dump($done, array_unique($rets, SORT_REGULAR), $order, $el >= 0.099 && $el < 0.5);
?>
--EXPECT--
int(50)
array(1) {
  [0]=>
  bool(true)
}
array(2) {
  [0]=>
  string(7) "shorter"
  [1]=>
  string(5) "short"
}
bool(true)
