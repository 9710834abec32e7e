--TEST--
swoole_coroutine: Swoole\Coroutine\go/defer/batch/map/parallel and Co\go/Co\defer exist, as in Swoole's library
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
Co\run(function () {
    Co\go(function () { echo "co go\n"; });
    Swoole\Coroutine\go(function () {
        Co\defer(fn () => print("deferred\n"));
        Swoole\Coroutine\defer(fn () => print("deferred first\n"));
        echo "ns go\n";
    });
    var_dump(Swoole\Coroutine\batch(['a' => fn () => 1, 'b' => function () { Co::sleep(0.01); return 2; }]));
    var_dump(Swoole\Coroutine\map([1, 2], fn ($x) => $x * 10));
    $n = 0;
    Swoole\Coroutine\parallel(3, function () use (&$n) { Co::sleep(0.01); $n++; });
    var_dump($n);
});
?>
--EXPECT--
co go
ns go
deferred first
deferred
array(2) {
  ["a"]=>
  int(1)
  ["b"]=>
  int(2)
}
array(2) {
  [0]=>
  int(10)
  [1]=>
  int(20)
}
int(3)
