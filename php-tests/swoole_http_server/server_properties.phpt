--TEST--
swoole_http_server: master_pid, manager_pid, worker_id, worker_pid, taskworker, port, host, mode and the get*Pid/Id methods inside a request
--DESCRIPTION--
Swoole 6.2.1 in BASE mode sets the master_pid property only in worker 0 (0 elsewhere) although getMasterPid() is right;
rswoole must keep the property and the method consistent in every worker.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The handler returns the server's view of itself as JSON; the parent checks it against the real processes.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $s = rsw_server();
    $resp->end(json_encode([
        'master_pid' => $s->master_pid, 'manager_pid' => $s->manager_pid,
        'worker_id' => $s->worker_id, 'worker_pid' => $s->worker_pid, 'taskworker' => $s->taskworker,
        'port' => $s->port, 'host' => $s->host, 'mode' => $s->mode,
        'getMasterPid' => $s->getMasterPid(), 'getManagerPid' => $s->getManagerPid(),
        'getWorkerId' => $s->getWorkerId(), 'getWorkerPid' => $s->getWorkerPid(),
        'mypid' => getmypid(), 'ppid' => posix_getppid(),
    ]));
}, ['worker_num' => 2]), function ($port, ServerTest $t) {
    [$status, , $body] = rsw_http_get($port, '/');
    $j = json_decode($body, true);
    $group = $t->groupPids();
    var_dump($status);
    rsw_check('master_pid === getMasterPid()', $j['master_pid'] === $j['getMasterPid'], $j);
    rsw_check('master_pid is a server process', in_array($j['master_pid'], $group, true), [$j, $group]);
    rsw_check('manager_pid === getManagerPid()', $j['manager_pid'] === $j['getManagerPid'], $j);
    rsw_check('manager is the parent of the worker', $j['manager_pid'] === $j['ppid'] && in_array($j['manager_pid'], $group, true), [$j, $group]);
    rsw_check('worker_pid === getWorkerPid() === getmypid()', $j['worker_pid'] === $j['getWorkerPid'] && $j['worker_pid'] === $j['mypid'], $j);
    rsw_check('worker_pid is not the manager', $j['worker_pid'] !== $j['manager_pid'], $j);
    rsw_check('worker_id === getWorkerId() in [0,1]', $j['worker_id'] === $j['getWorkerId'] && in_array($j['worker_id'], [0, 1], true), $j);
    var_dump($j['taskworker'], $j['port'] === $port, $j['host'], $j['mode'] === SWOOLE_BASE);
}, 10, ['ready_count' => 2]);
?>
--EXPECT--
int(200)
master_pid === getMasterPid(): OK
master_pid is a server process: OK
manager_pid === getManagerPid(): OK
manager is the parent of the worker: OK
worker_pid === getWorkerPid() === getmypid(): OK
worker_pid is not the manager: OK
worker_id === getWorkerId() in [0,1]: OK
bool(false)
bool(true)
string(9) "127.0.0.1"
bool(true)
