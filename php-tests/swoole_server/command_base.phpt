--TEST--
swoole_server: addCommand()/command() in BASE mode: only worker 0 may call it; worker 0 itself is the "master"
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
pcntl_alarm(20);
$server = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_BASE);
$server->addCommand('whoami', SWOOLE_SERVER_COMMAND_MASTER | SWOOLE_SERVER_COMMAND_EVENT_WORKER | SWOOLE_SERVER_COMMAND_TASK_WORKER,
    fn (Swoole\Server $server, string $msg) => json_encode(['pid' => posix_getpid(), 'worker_id' => $server->worker_id, 'msg' => json_decode($msg)]));
$server->set(['worker_num' => 2, 'task_worker_num' => 1, 'log_file' => '/dev/null']);
$server->on('task', function () {});
$server->on('request', function ($req, $resp) {});
$server->on('workerStart', function (Swoole\Server $serv, int $id) {
    if ($id === 1) {
        usleep(100000);
        echo 'from worker 1: ', var_export($serv->command('whoami', 0, SWOOLE_SERVER_COMMAND_EVENT_WORKER, 1), true), ' ', swoole_last_error(), "\n";
        return;
    }
    if ($id !== 0) {
        return;
    }
    usleep(300000);
    $r = $serv->command('whoami', 0, SWOOLE_SERVER_COMMAND_EVENT_WORKER, 'w0');
    echo 'worker 0 runs it itself: ', var_export($r['pid'] === posix_getpid(), true), ' ', $r['msg'], "\n";
    $r = $serv->command('whoami', 1, SWOOLE_SERVER_COMMAND_EVENT_WORKER, 'w1');
    echo 'worker 1: ', var_export($r['pid'] === $serv->getWorkerPid(1), true), ' worker_id=', $r['worker_id'], ' ', $r['msg'], "\n";
    $r = $serv->command('whoami', 0, SWOOLE_SERVER_COMMAND_TASK_WORKER, 't0');
    echo 'task worker 0: worker_id=', $r['worker_id'], ' ', $r['msg'], "\n";
    $serv->shutdown();
});
$server->start();
echo "DONE\n";
?>
--EXPECT--
from worker 1: false 505
worker 0 runs it itself: true w0
worker 1: true worker_id=1 w1
task worker 0: worker_id=2 t0
DONE
