--TEST--
swoole_coroutine: coroutine C stacks come from shared mappings: 5,000 sleeping coroutines add far fewer than 5,000 memory mappings (a \Fiber stack costs two each, capping coroutines at vm.max_map_count / 2), and all wake
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--INI--
memory_limit=-1
--FILE--
<?php
function maps(): int { return count(file('/proc/self/maps')); }
$n = 5000;
$woke = 0;
Co\run(function () use ($n, &$woke) {
    $before = maps();
    for ($i = 0; $i < $n; $i++) {
        go(function () use (&$woke) {
            Co::sleep(0.2);
            $woke++;
        });
    }
    $grown = maps() - $before;
    echo "coroutines alive: ", Co::stats()['coroutine_num'] - 1, "\n";
    echo "mappings grew by less than 200: ", var_export($grown < 200, true), " ($grown)\n";
});
echo "woke: $woke\n";
?>
--EXPECTF--
coroutines alive: 5000
mappings grew by less than 200: true (%d)
woke: 5000
