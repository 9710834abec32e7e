--TEST--
swoole_library: parallel(10, fn) runs 10 coroutines at once; batch() with a timeout returns what finished in time; deadlock_check() reports
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use function Swoole\Coroutine\{batch, parallel, map, deadlock_check};
Co\run(function () {
    $t = microtime(true);
    $cids = [];
    parallel(10, function () use (&$cids) {
        $cids[Co::getCid()] = true;
        Co::sleep(0.2);
    });
    $took = microtime(true) - $t;
    // Serially this would take 2 s.
    echo 'parallel: ', count($cids), ' coroutines, ', $took < 0.5 ? 'concurrent' : "serial ({$took}s)", "\n";

    $t = microtime(true);
    $r = batch([
        'fast' => fn() => 'done',
        'mid' => function () { Co::sleep(0.1); return 'mid'; },
        'slow' => function () { Co::sleep(2); return 'late'; },
    ], 0.5);
    $took = microtime(true) - $t;
    var_dump($r);
    echo 'batch returned after the timeout: ', $took >= 0.45 && $took < 1.0 ? 'yes' : "no ({$took}s)", "\n";

    $t = microtime(true);
    var_dump(map([1, 2, 3], function ($x) { Co::sleep(0.2); return $x * $x; }));
    echo 'map: ', microtime(true) - $t < 0.5 ? 'concurrent' : 'serial', "\n";
});
Co\run(function () {
    go(function () { Co::suspend(); });
    ob_start();
    deadlock_check();
    $report = ob_get_clean();
    echo str_contains($report, '[FATAL ERROR]: all coroutines (count: 2) are asleep - deadlock!') ? "report ok\n" : $report;
    echo str_contains($report, '[Coroutine-') ? "traces ok\n" : $report;
    foreach (Co::list() as $cid) {
        if ($cid !== Co::getCid()) {
            Co::resume($cid);
        }
    }
});
?>
--EXPECTF--
parallel: 10 coroutines, concurrent
array(3) {
  ["fast"]=>
  string(4) "done"
  ["mid"]=>
  string(3) "mid"
  ["slow"]=>
  NULL
}
batch returned after the timeout: yes
array(3) {
  [0]=>
  int(1)
  [1]=>
  int(4)
  [2]=>
  int(9)
}
map: concurrent
report ok
traces ok
