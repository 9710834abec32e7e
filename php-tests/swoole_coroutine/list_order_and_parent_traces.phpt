--TEST--
swoole_coroutine: Co::list() gives the newest coroutine first; a coroutine waiting inside go() has a backtrace; readFile() lets other coroutines run; a negative c_stack_size means the largest
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
Co\run(function () {
    go(function () {
        go(function () {
            $list = iterator_to_array(Co::list(), false);
            echo implode(',', $list), "\n";
            foreach ($list as $cid) {
                $t = Co::getBackTrace($cid, DEBUG_BACKTRACE_IGNORE_ARGS);
                echo $cid, ': ', is_array($t) ? implode(' < ', array_map(fn($f) => $f['function'], $t)) : 'none', "\n";
            }
        });
    });
    $order = [];
    go(function () use (&$order) { Co::readFile(__FILE__); $order[] = 'read'; });
    go(function () use (&$order) { $order[] = 'other'; });
    Co::sleep(0.1);
    echo implode(',', $order), "\n";
});
Co::set(['c_stack_size' => -1]);
var_dump(Co::stats()['c_stack_size'] === 16 * 1024 * 1024);
?>
--EXPECT--
3,2,1
3: getBackTrace < {closure}
2: go < {closure}
1: go < {closure}
other,read
bool(true)
