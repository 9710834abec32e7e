<?php
// bench/tcp/task.php: task round-trip rate for bench/tcp.sh. Swoole\Server (SWOOLE_BASE),
// worker_num 1, task_worker_num 1; onTask returns its payload (an int) unchanged.
// 200 ms after workerStart, a timer in worker 0 drives tasks for RSW_SECONDS seconds:
//   RSW_TASK_MODE=wait    a loop of $server->taskwait($i, 1.0): one task in flight, each checked
//   RSW_TASK_MODE=finish  task($i) with RSW_WINDOW tasks in flight; onFinish checks the result
//                         and sends the next one
// It then writes one JSON line (mode, window, round_trips, seconds, per_s, errors, worker_pid) to
// RSW_RESULT and stays idle; bench/tcp.sh reads the RSS of the worker and of the task worker (whose
// pid the task worker writes to RSW_RESULT.taskpid) and stops the server by pid.
$port = (int) (getenv('RSW_PORT') ?: 9501);
$mode = getenv('RSW_TASK_MODE') ?: 'wait';
$seconds = (float) (getenv('RSW_SECONDS') ?: 5);
$window = max(1, (int) (getenv('RSW_WINDOW') ?: 100));
$result = getenv('RSW_RESULT') ?: '/tmp/rsw-task-result.json';

$server = new Swoole\Server('127.0.0.1', $port, SWOOLE_BASE, SWOOLE_SOCK_TCP);
$server->set(['worker_num' => 1, 'task_worker_num' => 1]);
$server->on('receive', function (Swoole\Server $server, int $fd, int $reactorId, string $data) {
    $server->send($fd, $data);
});
$server->on('task', function (Swoole\Server $server, int $taskId, int $srcWorkerId, $data) {
    return $data;
});

$st = new stdClass();
$st->n = 0;
$st->errors = 0;
$st->next = 0;
$st->t0 = 0.0;
$st->end = 0.0;
$st->done = false;

$report = function (float $elapsed) use ($st, $mode, $window, $result) {
    $st->done = true;
    file_put_contents("$result.tmp", json_encode([
        'mode' => $mode,
        'window' => $mode === 'wait' ? 1 : $window,
        'round_trips' => $st->n,
        'seconds' => round($elapsed, 3),
        'per_s' => round($st->n / $elapsed),
        'errors' => $st->errors,
        'worker_pid' => getmypid(),
    ]) . "\n");
    rename("$result.tmp", $result); // atomic: bench/tcp.sh polls for $result
};

$server->on('finish', function (Swoole\Server $server, int $taskId, $data) use ($st, $report) {
    if ($st->done) {
        return;
    }
    if (!is_int($data) || $data < 0 || $data >= $st->next) {
        $st->errors++;
    }
    $st->n++;
    $now = microtime(true);
    if ($now < $st->end) {
        if ($server->task($st->next++) === false) {
            $st->errors++;
        }
    } else {
        $report($now - $st->t0);
    }
});

$server->on('workerStart', function (Swoole\Server $server, int $workerId) use ($st, $mode, $seconds, $window, $result, $report) {
    if ($server->taskworker) {
        file_put_contents("$result.taskpid", getmypid());
        return;
    }
    Swoole\Timer::after(200, function () use ($server, $st, $mode, $seconds, $window, $report) {
        $st->t0 = microtime(true);
        $st->end = $st->t0 + $seconds;
        if ($mode === 'wait') {
            $i = 0;
            while (($now = microtime(true)) < $st->end) {
                $r = $server->taskwait($i, 1.0);
                if ($r !== $i) {
                    $st->errors++;
                }
                $st->n++;
                $i++;
            }
            $report($now - $st->t0);
        } else {
            for ($k = 0; $k < $window; $k++) {
                if ($server->task($st->next++) === false) {
                    $st->errors++;
                }
            }
        }
    });
});
$server->start();
