--TEST--
swoole_server_process: the master answers a request whose worker it SIGKILLed with Response::create($server, $fd) (Laravel Octane's max_execution_time watchdog)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

$stuck = tempnam(sys_get_temp_dir(), 'rsw_stuck_');
@unlink($stuck);
$t = new ServerTest(function ($port, $ready) use ($stuck) {
    $http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_PROCESS);
    $http->set(['worker_num' => 1, 'enable_coroutine' => false, 'log_level' => SWOOLE_LOG_WARNING]);
    $http->on('start', function ($s) use ($stuck) {
        Swoole\Timer::tick(100, function () use ($s, $stuck) {
            if (!is_file($stuck)) {
                return;
            }
            [$pid, $fd] = explode(' ', file_get_contents($stuck));
            unlink($stuck);
            posix_kill((int) $pid, SIGKILL);
            $r = Swoole\Http\Response::create($s, (int) $fd);
            echo 'create: ', $r instanceof Swoole\Http\Response ? 'response' : var_export($r, true), "\n";
            $r->status(408);
            $r->header('X-Watchdog', 'master');
            var_dump($r->end('too slow'));
            var_dump(Swoole\Http\Response::create($s, 999999));
        });
    });
    $http->on('workerStart', function ($s, $id) use ($ready) { $ready(); });
    $http->on('request', function ($req, $resp) use ($stuck) {
        if ($req->server['request_uri'] === '/spin') {
            file_put_contents($stuck, getmypid() . ' ' . $req->fd);
            $end = microtime(true) + 20;
            while (microtime(true) < $end) {
            }
        }
        $resp->end('pid ' . getmypid());
    });
    $http->start();
}, ['ready_count' => 1]);
$t->start();
$before = microtime(true);
$c = new RswConn($t->port);
$c->send("GET /spin HTTP/1.1\r\nHost: x\r\n\r\n");
rsw_read_until($c, fn($b) => str_ends_with($b, 'too slow'), 5);
$took = microtime(true) - $before;
rsw_check('the client got 408 from the master within 2 s', str_starts_with($c->buf, 'HTTP/1.1 408 Request Timeout') && str_contains($c->buf, "X-Watchdog: master\r\n") && $took < 2, [$took, $c->buf]);
$eof = !$c->fill(2.0);
rsw_check('then the connection is closed', $eof, $c->buf);
$c->close();
usleep(300000);
$ok = false;
for ($i = 0; $i < 20 && !$ok; $i++) {
    $body = @file_get_contents("http://127.0.0.1:{$t->port}/");
    $ok = is_string($body) && str_starts_with($body, 'pid ');
    usleep(100000);
}
rsw_check('the replacement worker serves', $ok);
$log = $t->log();
echo $t->stop(), "\n";
rsw_check('create() gave a response, end() true, an unknown fd false with a warning', str_contains($log, "create: response\nbool(true)") && str_contains($log, 'session[999999] is not exists') && str_contains($log, "bool(false)"), $log);
?>
--EXPECT--
the client got 408 from the master within 2 s: OK
then the connection is closed: OK
the replacement worker serves: OK
exit=0
create() gave a response, end() true, an unknown fd false with a warning: OK
