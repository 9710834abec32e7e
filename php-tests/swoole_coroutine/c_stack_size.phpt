--TEST--
swoole_coroutine: Co::set(['c_stack_size' => n]) (or 'stack_size') sets the C stack of new coroutines, clamped to 64 KiB..16 MiB and rounded to 4 KiB, as Swoole's; stats() reports it; coroutines run on the smaller stack
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
var_dump(Co::stats()['c_stack_size']);
Co::set(['c_stack_size' => 1000]);
var_dump(Co::stats()['c_stack_size']);
Co::set(['stack_size' => 300000]);
var_dump(Co::stats()['c_stack_size']);
Co::set(['c_stack_size' => 1 << 30]);
var_dump(Co::stats()['c_stack_size']);
Co::set(['c_stack_size' => 64 * 1024]);
// Internal-to-user callback nesting uses the C stack: 40 levels fit in 64 KiB.
function nest(int $n): int { return $n === 0 ? 0 : array_sum(array_map(fn($x) => nest($x), [$n - 1])) + 1; }
Co\run(function () {
    $r = [];
    for ($i = 0; $i < 3; $i++) {
        go(function () use (&$r, $i) {
            Co::sleep(0.01);
            $r[] = nest(40) + $i;
        });
    }
    Co::sleep(0.05);
    sort($r);
    echo implode(',', $r), "\n";
});
?>
--EXPECT--
int(2097152)
int(65536)
int(303104)
int(16777216)
40,41,42
