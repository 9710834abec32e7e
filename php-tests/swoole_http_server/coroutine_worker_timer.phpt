--TEST--
swoole_http_server: a Timer::tick created in onWorkerStart fires inside that worker's process
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$file = rsw_tempfile('rsw_wtimer_');
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('ticks=' . ($GLOBALS['ticks'] ?? 0));
}, ['worker_num' => 1], SWOOLE_BASE, [
    'workerStart' => function ($server, $workerId) use ($file) {
        $GLOBALS['ticks'] = 0;
        file_put_contents($file, "start $workerId " . getmypid() . "\n", FILE_APPEND);
        Swoole\Timer::tick(50, function ($id) use ($file) {
            $GLOBALS['ticks']++;
            file_put_contents($file, "tick " . getmypid() . "\n", FILE_APPEND);
        });
    },
]), function ($port) use ($file) {
    usleep(600000);
    [$status, , $body] = rsw_http_get($port, '/');
    $lines = file($file, FILE_IGNORE_NEW_LINES);
    $start = array_values(array_filter($lines, fn($l) => str_starts_with($l, 'start ')));
    $ticks = array_values(array_filter($lines, fn($l) => str_starts_with($l, 'tick ')));
    var_dump($status);
    rsw_check('one worker started', count($start) === 1, $start);
    [, $wid, $wpid] = explode(' ', $start[0] ?? '- - -');
    var_dump($wid);
    rsw_check('timer ticked several times in 0.6 s', count($ticks) >= 5 && count($ticks) <= 14, count($ticks));
    rsw_check('every tick ran in the worker process', $ticks !== [] && array_unique($ticks) === ["tick $wpid"], array_unique($ticks));
    rsw_check('the request handler sees the ticks counted in the same process', (int) substr($body, 6) >= 5, $body);
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
int(200)
one worker started: OK
string(1) "0"
timer ticked several times in 0.6 s: OK
every tick ran in the worker process: OK
the request handler sees the ticks counted in the same process: OK
