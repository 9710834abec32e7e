--TEST--
swoole_server: addCommand()/command() in PROCESS mode: master, worker and task worker handlers, results JSON-decoded, Swoole's refusals
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
pcntl_alarm(20); // a hung test dies instead of hanging the suite
$server = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_PROCESS);
$all = SWOOLE_SERVER_COMMAND_MASTER | SWOOLE_SERVER_COMMAND_EVENT_WORKER | SWOOLE_SERVER_COMMAND_TASK_WORKER;
var_dump($server->addCommand('whoami', $all, function (Swoole\Server $server, string $msg) {
    return json_encode(['pid' => posix_getpid(), 'msg' => json_decode($msg, true), 'worker_id' => $server->worker_id]);
}));
var_dump(@$server->addCommand('whoami', $all, fn () => ''));            // the name is taken
var_dump(@$server->addCommand('rt', SWOOLE_SERVER_COMMAND_REACTOR_THREAD, fn () => ''));
$server->addCommand('number', SWOOLE_SERVER_COMMAND_EVENT_WORKER, fn () => 42);
$server->addCommand('master_only', SWOOLE_SERVER_COMMAND_MASTER, fn () => '"m"');
var_dump(@$server->command('whoami', 0, SWOOLE_SERVER_COMMAND_MASTER, []));  // not running yet
$server->set(['worker_num' => 2, 'task_worker_num' => 1, 'log_file' => '/dev/null']);
$server->on('task', function () {});
$server->on('request', function ($req, $resp) {});
$server->on('start', function (Swoole\Server $serv) {
    $r = $serv->command('whoami', 0, SWOOLE_SERVER_COMMAND_MASTER, ['type' => 'master']);
    echo 'master: ', var_export($r['pid'] === $serv->getMasterPid(), true), ' ', json_encode($r['msg']), "\n";
    $r = $serv->command('whoami', 1, SWOOLE_SERVER_COMMAND_EVENT_WORKER, ['type' => 'worker']);
    echo 'worker 1: ', var_export($r['pid'] === $serv->getWorkerPid(1), true), ' worker_id=', $r['worker_id'], "\n";
    $r = $serv->command('whoami', 0, SWOOLE_SERVER_COMMAND_TASK_WORKER, 'x', false);
    $d = json_decode($r, true);
    echo 'task worker 0 (raw): ', gettype($r), ' worker_id=', $d['worker_id'], ' msg=', $d['msg'], ' not the master: ', var_export($d['pid'] !== posix_getpid(), true), "\n";
    echo 'unknown: ', var_export($serv->command('nope', 1, SWOOLE_SERVER_COMMAND_EVENT_WORKER, []), true), ' ', swoole_last_error(), "\n";
    echo 'not accepted: ', var_export($serv->command('master_only', 1, SWOOLE_SERVER_COMMAND_EVENT_WORKER, []), true), ' ', swoole_last_error(), "\n";
    echo 'no such worker: ', var_export($serv->command('whoami', 5, SWOOLE_SERVER_COMMAND_EVENT_WORKER, []), true), ' ', swoole_last_error(), "\n";
    echo 'not a string: ', json_encode($serv->command('number', 0, SWOOLE_SERVER_COMMAND_EVENT_WORKER, [])), "\n";
    $serv->shutdown();
});
$server->start();
echo "DONE\n";
?>
--EXPECT--
bool(true)
bool(false)
bool(false)
bool(false)
master: true {"type":"master"}
worker 1: true worker_id=1
task worker 0 (raw): string worker_id=2 msg=x not the master: true
unknown: false 9012
not accepted: false 507
no such worker: false 505
not a string: {"data":"wrong return type","code":-2}
DONE
