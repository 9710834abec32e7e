<?php // bench/coro/create.php: coroutine create+finish rate, N x go(function(){}) inside Co\run (bench/coro.sh step 1).
// Usage: php -n -d extension=... create.php [N=1000000]
// Prints one line: RESULT n=.. seconds=.. per_sec=.. hwm_kb=.. rss_start_kb=.. done=..
function vm(string $key): int
{
    return preg_match('/^' . $key . ':\s+(\d+)/m', file_get_contents('/proc/self/status'), $m) ? (int) $m[1] : -1;
}
$n = (int) ($argv[1] ?? 1000000);
$rssStart = vm('VmRSS');
$done = 0;
$t0 = hrtime(true);
Co\run(function () use ($n, &$done) {
    for ($i = 0; $i < $n; $i++) {
        go(function () use (&$done) { $done++; });
    }
});
$secs = (hrtime(true) - $t0) / 1e9;
printf("RESULT n=%d seconds=%.4f per_sec=%.0f hwm_kb=%d rss_start_kb=%d done=%d\n",
    $n, $secs, $n / $secs, vm('VmHWM'), $rssStart, $done);
