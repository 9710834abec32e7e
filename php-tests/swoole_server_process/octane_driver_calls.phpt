--TEST--
swoole_server_process: the calls Laravel Octane's Swoole driver makes (string port and options, a Table subclass, master tick + task, taskWaitMulti, cookies, chunked writes, a watchdog that SIGKILLs a stuck worker and answers 408 with Response::create)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

// Octane subclasses Swoole\Table with Swoole's own signatures.
class TimerTable extends Swoole\Table
{
    public function column(string $name, int $type, int $size = 0): bool
    {
        return parent::column($name, $type, $size);
    }

    public function set(string $key, array $values): bool
    {
        return parent::set($key, $values);
    }
}

$timers = new TimerTable(64);
$timers->column('worker_pid', Swoole\Table::TYPE_INT);
$timers->column('time', Swoole\Table::TYPE_INT);
$timers->column('fd', Swoole\Table::TYPE_INT);
$timers->create();

$t = new ServerTest(function ($port, $ready) use ($timers) {
    $server = new Swoole\Http\Server('127.0.0.1', (string) $port, SWOOLE_PROCESS, SWOOLE_SOCK_TCP);
    $server->set([
        'enable_coroutine' => false, 'daemonize' => false, 'log_level' => SWOOLE_LOG_ERROR,
        'max_request' => '500', 'package_max_length' => 10 * 1024 * 1024, 'reactor_num' => (string) swoole_cpu_num(),
        'send_yield' => true, 'socket_buffer_size' => 10 * 1024 * 1024, 'task_max_request' => '500',
        'task_worker_num' => '1', 'worker_num' => '2',
    ]);
    $server->on('start', function (Swoole\Http\Server $server) use ($timers) {
        echo "start master=", $server->master_pid === getmypid() ? 'self' : 'other', "\n";
        Swoole\Timer::tick(100, fn () => $server->task('octane-tick'));
        Swoole\Timer::tick(100, function () use ($server, $timers) {
            foreach ($timers as $workerId => $row) {
                if (microtime(true) - $row['time'] / 1000 > 0.5) {
                    $timers->del($workerId);
                    if (Swoole\Process::kill($row['worker_pid'], 0)) {
                        Swoole\Process::kill($row['worker_pid'], SIGKILL);
                    }
                    $response = Swoole\Http\Response::create($server, $row['fd']);
                    if ($response) {
                        $response->status(408);
                        $response->end();
                    }
                }
            }
        });
    });
    $server->on('managerstart', fn () => null);
    $server->on('workerstart', function (Swoole\Http\Server $server, $workerId) use ($ready) { $ready(); });
    $server->on('request', function ($request, $response) use ($server, $timers) {
        $timers->set((string) $server->worker_id, ['worker_pid' => getmypid(), 'time' => (int) (microtime(true) * 1000), 'fd' => $request->fd]);
        switch ($request->server['request_uri']) {
            case '/spin':
                while (true) {
                }
            case '/tasks':
                $results = $server->taskWaitMulti(['a' => 'one', 'b' => 'two'], 2.0);
                ksort($results);
                $response->end(json_encode($results));
                break;
            default:
                $response->header('X-Powered-By', 'octane-shape');
                $response->status(201, 'Made');
                $response->cookie('c1', 'v 1', time() + 60, '/', '', false, true, 'lax');
                $response->rawcookie('c2', 'v%202');
                $response->write('chunk-1;');
                $response->write('chunk-2;');
                $response->end();
        }
        $timers->del((string) $server->worker_id);
    });
    $server->on('task', fn (Swoole\Http\Server $server, int $taskId, int $fromWorkerId, $data) => $data === 'octane-tick' ? null : strtoupper($data));
    $server->on('finish', fn (Swoole\Http\Server $server, int $taskId, $result) => $result);
    $server->start();
}, ['ready_count' => 3]);
$t->start();

$c = new RswConn($t->port);
$c->send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
rsw_read_until($c, fn($b) => str_ends_with($b, "0\r\n\r\n"), 5);
$c->close();
rsw_check('status with reason, header, both cookies, chunked body', str_starts_with($c->buf, "HTTP/1.1 201 Made\r\n")
    && str_contains($c->buf, "X-Powered-By: octane-shape\r\n") && str_contains($c->buf, 'Set-Cookie: c1=v+1;')
    && str_contains($c->buf, 'HttpOnly') && str_contains($c->buf, 'Set-Cookie: c2=v%202') && str_contains($c->buf, "chunk-1;") && str_contains($c->buf, "chunk-2;"), $c->buf);

$tasks = @file_get_contents("http://127.0.0.1:{$t->port}/tasks");
rsw_check('taskWaitMulti from a request', $tasks === '{"a":"ONE","b":"TWO"}', $tasks);

$before = microtime(true);
$c = new RswConn($t->port);
$c->send("GET /spin HTTP/1.1\r\nHost: x\r\n\r\n");
rsw_read_until($c, fn($b) => str_contains($b, "\r\n\r\n"), 5);
$c->close();
$took = microtime(true) - $before;
rsw_check('the watchdog answered 408 from the master', str_starts_with($c->buf, "HTTP/1.1 408 ") && $took < 2.5, [$took, $c->buf]);
$ok = 0;
for ($i = 0; $i < 30 && $ok < 4; $i++) {
    $ok += str_contains((string) @file_get_contents("http://127.0.0.1:{$t->port}/"), 'chunk-2;') ? 1 : 0;
    usleep(50000);
}
rsw_check('both workers serve again after the stuck one was replaced', $ok >= 4, $ok);
$log = $t->log();
echo $t->stop(), "\n";
rsw_check('onStart ran in the master', str_contains($log, 'start master=self'), $log);
rsw_check('no warning or error was logged', !preg_match('/Warning|Fatal|ERROR/', $log), $log);
?>
--EXPECT--
status with reason, header, both cookies, chunked body: OK
taskWaitMulti from a request: OK
the watchdog answered 408 from the master: OK
both workers serve again after the stuck one was replaced: OK
exit=0
onStart ran in the master: OK
no warning or error was logged: OK
