--TEST--
swoole_server_process: a Timer::tick started in onStart runs in the PROCESS-mode master and can dispatch tasks (Laravel Octane's tick)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

$t = new ServerTest(function ($port, $ready) {
    $http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_PROCESS);
    $http->set(['worker_num' => 1, 'task_worker_num' => 1, 'enable_coroutine' => false, 'log_level' => SWOOLE_LOG_WARNING]);
    $http->on('start', function ($s) {
        Swoole\Timer::tick(100, function ($id) use ($s) {
            $master = getmypid() === $s->master_pid ? 'master' : 'not-master';
            echo "tick in $master\n";
            var_dump($s->task('octane-tick'));
        });
    });
    $http->on('workerStart', function ($s, $id) use ($ready) { $ready(); });
    $http->on('task', function ($s, $taskId, $src, $data) {
        echo "task $data from $src\n";
        return 'done'; // nobody waits for a task the master sent: dropped
    });
    $http->on('finish', function () { echo "finish must not run\n"; });
    $http->on('request', function ($req, $resp) { $resp->end('ok'); });
    $http->start();
}, ['ready_count' => 2]);
$t->start();
usleep(650000);
$log = $t->log();
echo $t->stop(), "\n";
$ticks = rsw_log_lines($log, 'tick in ');
$tasks = rsw_log_lines($log, 'task octane-tick from 0');
rsw_check('the master timer fired at least 4 times, in the master', count($ticks) >= 4 && count(array_unique($ticks)) === 1 && $ticks[0] === 'tick in master', $ticks);
rsw_check('each tick reached the task worker', count($tasks) >= 3, $log);
rsw_check('task() returned a task id, no warning, no onFinish', !str_contains($log, 'bool(false)') && !str_contains($log, 'Warning') && !str_contains($log, 'finish must not run'), $log);
?>
--EXPECT--
exit=0
the master timer fired at least 4 times, in the master: OK
each tick reached the task worker: OK
task() returned a task id, no warning, no onFinish: OK
