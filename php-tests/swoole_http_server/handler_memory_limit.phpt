--TEST--
swoole_http_server: exhausting memory_limit in the handler is fatal, the worker is replaced, the server keeps serving
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The worker writes its pid, then allocates past a 16M memory_limit; afterwards that pid is gone, a new workerStart ran, and requests succeed.
require __DIR__ . '/../include/bootstrap.php';
$pidFile = rsw_tempfile('rsw_pid_');
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($pidFile) {
    if ($req->server['request_uri'] === '/oom') {
        file_put_contents($pidFile, (string) getmypid());
        ini_set('memory_limit', '16M');
        $hog = [];
        while (true) {
            $hog[] = str_repeat('x', 1 << 20);
        }
    }
    $resp->end((string) getmypid());
}, ['worker_num' => 2]), function ($port, ServerTest $t) use ($pidFile) {
    $r = rsw_request($port, 'GET', '/oom');
    echo 'oom: ', in_array($r['status'] ?? null, [500, null], true) ? '500 or closed' : $r['status'], "\n";
    $dead = (int) file_get_contents($pidFile);
    rsw_check('fatal worker is gone', $dead > 0 && rsw_wait_until(fn() => !rsw_pid_alive($dead), 5), $dead);
    rsw_check('a replacement worker started', rsw_wait_until(fn() => $t->readyCount() >= 3, 5), $t->readyCount());
    $ok = 0;
    $pids = [];
    for ($i = 0; $i < 10; $i++) {
        [$s, , $b] = rsw_http_get($port, '/');
        $ok += $s === 200;
        $pids[] = (int) $b;
    }
    echo "after: $ok/10\n";
    rsw_check('log reports the memory exhaustion', str_contains($t->log(), 'Allowed memory size'), $t->log());
    rsw_check('served by live workers, not the dead one', !in_array($dead, $pids, true), $pids);
}, 10, ['ready_count' => 2]);
@unlink($pidFile);
?>
--EXPECT--
oom: 500 or closed
fatal worker is gone: OK
a replacement worker started: OK
after: 10/10
log reports the memory exhaustion: OK
served by live workers, not the dead one: OK
