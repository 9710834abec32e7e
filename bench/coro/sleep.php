<?php // bench/coro/sleep.php: N concurrent coroutines that each Co::sleep(1) inside Co\run: wall time and RSS (bench/coro.sh step 2).
// Usage: php -n -d memory_limit=-1 -d extension=... sleep.php [N=100000]
// go() is wrapped in try/catch: if creating coroutine #i fails (e.g. the fiber stack mmap/mprotect
// hits vm.max_map_count), it prints "FAIL at=i error=..." at once and stops creating; coroutines
// already created still finish.
// Prints: RESULT n=.. create_s=.. total_s=.. hwm_kb=.. rss_start_kb=.. rss_peak_kb=.. maps_peak=.. woke=..
// late_max_s=.. (the latest any coroutine ran again after its own 1 s deadline)
function vm(string $key): int
{
    return preg_match('/^' . $key . ':\s+(\d+)/m', file_get_contents('/proc/self/status'), $m) ? (int) $m[1] : -1;
}
function map_count(): int
{
    $c = 0;
    $f = fopen('/proc/self/maps', 'r');
    while (fgets($f) !== false) {
        $c++;
    }
    fclose($f);
    return $c;
}
$n = (int) ($argv[1] ?? 100000);
// Swoole's default max_coroutine is 100000 and Co\run's own coroutine counts against it.
Swoole\Coroutine::set(['max_coroutine' => $n + 100]);
$rssStart = vm('VmRSS');
$woke = 0;
$lateMax = 0.0;
$created = 0;
$createS = 0.0;
$rssPeak = -1;
$maps = -1;
$t0 = hrtime(true);
Co\run(function () use ($n, &$woke, &$lateMax, &$created, &$createS, &$rssPeak, &$maps, $t0) {
    for ($i = 0; $i < $n; $i++) {
        try {
            $ok = go(function () use (&$woke, &$lateMax) {
                $s = hrtime(true);
                Co::sleep(1);
                // How long after its deadline this coroutine ran again.
                $late = (hrtime(true) - $s) / 1e9 - 1.0;
                if ($late > $lateMax) {
                    $lateMax = $late;
                }
                $woke++;
            });
        } catch (Throwable $e) {
            echo "FAIL at=$i error=", str_replace("\n", ' ', $e->getMessage()), "\n";
            return;
        }
        if ($ok === false) {
            echo "FAIL at=$i error=go() returned false\n";
            return;
        }
        $created++;
    }
    $createS = (hrtime(true) - $t0) / 1e9;
    // All N are alive and asleep now.
    $rssPeak = vm('VmRSS');
    $maps = map_count();
});
$total = (hrtime(true) - $t0) / 1e9;
printf("RESULT n=%d create_s=%.4f total_s=%.4f hwm_kb=%d rss_start_kb=%d rss_peak_kb=%d maps_peak=%d woke=%d late_max_s=%.4f\n",
    $created, $createS, $total, vm('VmHWM'), $rssStart, $rssPeak, $maps, $woke, $lateMax);
