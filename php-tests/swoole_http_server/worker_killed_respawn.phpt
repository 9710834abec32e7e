--TEST--
swoole_http_server: a worker killed with SIGKILL is replaced and the server keeps serving
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Learn a worker's pid from a request, SIGKILL it, then expect a new workerStart and 200s from live workers.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->end((string) getmypid());
}, ['worker_num' => 4]), function ($port, ServerTest $t) {
    [$status, , $victim] = rsw_http_get($port, '/');
    $victim = (int) $victim;
    var_dump($status, in_array($victim, $t->groupPids(), true));
    posix_kill($victim, SIGKILL);
    rsw_check('victim is gone', rsw_wait_until(fn() => !rsw_pid_alive($victim), 5));
    rsw_check('a replacement worker started', rsw_wait_until(fn() => $t->readyCount() >= 5, 5), $t->readyCount());
    $ok = 0;
    $pids = [];
    for ($i = 0; $i < 20; $i++) {
        [$s, , $b] = rsw_http_get($port, '/');
        $ok += $s === 200;
        $pids[(int) $b] = true;
    }
    echo "200 after kill: $ok/20\n";
    rsw_check('victim never answers again', !isset($pids[$victim]));
    rsw_check('the answering workers are alive', array_filter(array_keys($pids), fn($p) => !rsw_pid_alive($p)) === [], array_keys($pids));
}, 10, ['ready_count' => 4]);
?>
--EXPECT--
int(200)
bool(true)
victim is gone: OK
a replacement worker started: OK
200 after kill: 20/20
victim never answers again: OK
the answering workers are alive: OK
