--TEST--
swoole_http_server: exit() in the handler answers 500 or closes the connection, the worker is replaced, the server keeps serving
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The exiting worker writes its pid first; afterwards that pid is gone, a new workerStart ran, and requests succeed.
require __DIR__ . '/../include/bootstrap.php';
$pidFile = rsw_tempfile('rsw_pid_');
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($pidFile) {
    if ($req->server['request_uri'] === '/exit') {
        file_put_contents($pidFile, (string) getmypid());
        exit(0);
    }
    $resp->end((string) getmypid());
}, ['worker_num' => 2]), function ($port, ServerTest $t) use ($pidFile) {
    $r = rsw_request($port, 'GET', '/exit');
    echo 'exit: ', in_array($r['status'] ?? null, [500, null], true) ? '500 or closed' : $r['status'], "\n";
    $dead = (int) file_get_contents($pidFile);
    rsw_check('exited worker is gone', $dead > 0 && rsw_wait_until(fn() => !rsw_pid_alive($dead), 5), $dead);
    rsw_check('a replacement worker started', rsw_wait_until(fn() => $t->readyCount() >= 3, 5), $t->readyCount());
    $ok = 0;
    $pids = [];
    for ($i = 0; $i < 10; $i++) {
        [$s, , $b] = rsw_http_get($port, '/');
        $ok += $s === 200;
        $pids[] = (int) $b;
    }
    echo "after: $ok/10\n";
    rsw_check('served by live workers, not the dead one', !in_array($dead, $pids, true), $pids);
}, 10, ['ready_count' => 2]);
@unlink($pidFile);
?>
--EXPECT--
exit: 500 or closed
exited worker is gone: OK
a replacement worker started: OK
after: 10/10
served by live workers, not the dead one: OK
