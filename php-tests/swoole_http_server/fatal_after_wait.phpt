--TEST--
swoole_http_server: a fatal error in a request coroutine (or a go() in it) after its first wait answers 500, skips onWorkerStop, exits the worker non-zero (onWorkerError in the manager), and the replacement serves
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$events = rsw_tempfile('rsw_ev_');
$pidFile = rsw_tempfile('rsw_pid_');
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($pidFile) {
    $uri = $req->server['request_uri'];
    if ($uri !== '/') {
        file_put_contents($pidFile, (string) getmypid());
    }
    if ($uri === '/fatal') {
        Swoole\Coroutine::sleep(0.01);
        trigger_error('rsw fatal after a wait', E_USER_ERROR);
    }
    if ($uri === '/stop') {
        $resp->end('stop: ' . var_export(rsw_server()->stop(), true));
        return;
    }
    if ($uri === '/go') {
        go(function () {
            Swoole\Coroutine::sleep(0.01);
            eval('function rsw_declared_twice() {}');
            eval('function rsw_declared_twice() {}');
        });
        $resp->end('go started');
        return;
    }
    $resp->end((string) getmypid());
}, ['worker_num' => 2, 'max_wait_time' => 2], SWOOLE_BASE, [
    'workerStart' => function ($s, $id) use ($events) {
        file_put_contents($events, "start " . getmypid() . "\n", FILE_APPEND);
    },
    'workerStop' => function ($s, $id) use ($events) {
        file_put_contents($events, "stop " . getmypid() . "\n", FILE_APPEND);
    },
    'workerExit' => function ($s, $id) use ($events) {
        file_put_contents($events, "exit " . getmypid() . "\n", FILE_APPEND);
    },
    'workerError' => function ($s, $id, $pid, $code, $sig) use ($events) {
        file_put_contents($events, "error id=$id pid=$pid code=$code signal=$sig\n", FILE_APPEND);
    },
]), function ($port, ServerTest $t) use ($events, $pidFile) {
    foreach (['/fatal', '/go'] as $i => $path) {
        $r = rsw_request($port, 'GET', $path);
        $dead = (int) file_get_contents($pidFile);
        echo "$path: ", $path === '/fatal' ? ($r['status'] ?? 'closed') : ($r['body'] ?? 'closed'), "\n";
        rsw_check("$path: the worker exits", $dead > 0 && rsw_wait_until(fn() => !rsw_pid_alive($dead), 5), $dead);
        rsw_check("$path: onWorkerError fired with exit code 255",
            rsw_wait_until(fn() => str_contains((string) file_get_contents($events), "pid=$dead code=255 signal=0"), 5),
            file_get_contents($events));
        rsw_check("$path: a replacement started", rsw_wait_until(fn() => $t->readyCount() >= $i + 3, 5), $t->readyCount());
        $served = [];
        for ($k = 0; $k < 6; $k++) {
            [$s, , $b] = rsw_http_get($port, '/');
            $served[] = $s === 200 ? (int) $b : -1;
        }
        rsw_check("$path: the live workers serve, not the dead one", !in_array(-1, $served, true) && !in_array($dead, $served, true), [$served, $dead]);
        $ev = (string) file_get_contents($events);
        rsw_check("$path: no onWorkerStop/onWorkerExit in the dead worker",
            !str_contains($ev, "stop $dead\n") && !str_contains($ev, "exit $dead\n"), $ev);
    }
    // $server->stop(): the worker drains and runs onWorkerStop, exits 0, and is replaced.
    $r = rsw_request($port, 'GET', '/stop');
    echo $r['body'] ?? 'closed', "\n";
    $stopped = (int) file_get_contents($pidFile);
    rsw_check('stop(): the worker exits', $stopped > 0 && rsw_wait_until(fn() => !rsw_pid_alive($stopped), 5), $stopped);
    rsw_check('stop(): a replacement started', rsw_wait_until(fn() => $t->readyCount() >= 5, 5), $t->readyCount());
    $ev = (string) file_get_contents($events);
    rsw_check('stop(): onWorkerStop ran, no onWorkerError',
        str_contains($ev, "stop $stopped\n") && !str_contains($ev, "pid=$stopped "), $ev);
    rsw_check('the fatal errors are logged',
        str_contains($t->log(), 'rsw fatal after a wait')
        && str_contains($t->log(), 'Cannot redeclare rsw_declared_twice()'), $t->log());
}, 10, ['ready_count' => 2]);
?>
--EXPECT--
/fatal: 500
/fatal: the worker exits: OK
/fatal: onWorkerError fired with exit code 255: OK
/fatal: a replacement started: OK
/fatal: the live workers serve, not the dead one: OK
/fatal: no onWorkerStop/onWorkerExit in the dead worker: OK
/go: go started
/go: the worker exits: OK
/go: onWorkerError fired with exit code 255: OK
/go: a replacement started: OK
/go: the live workers serve, not the dead one: OK
/go: no onWorkerStop/onWorkerExit in the dead worker: OK
stop: true
stop(): the worker exits: OK
stop(): a replacement started: OK
stop(): onWorkerStop ran, no onWorkerError: OK
the fatal errors are logged: OK
