--TEST--
swoole_server_process: SWOOLE_PROCESS HTTP server: dispatch_mode 2 keeps a keep-alive connection on one worker, 4 sends every connection from one client IP to the same worker, 3 gives new connections to the idle worker while the other is busy
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

function server_fn(int $mode): Closure
{
    return function ($port, $ready) use ($mode) {
        $http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_PROCESS);
        $http->set(['worker_num' => 2, 'dispatch_mode' => $mode, 'enable_coroutine' => false, 'log_level' => SWOOLE_LOG_WARNING]);
        $http->on('workerStart', function ($s, $id) use ($ready) { $ready(); });
        $http->on('request', function ($req, $resp) use ($http) {
            if ($req->server['request_uri'] === '/busy') {
                usleep(1500000); // blocks this worker
            }
            $resp->end((string) $http->worker_id);
        });
        $http->start();
    };
}

/** One request on a raw keep-alive connection; returns the body. */
function get(RswConn $c, string $path = '/'): string
{
    $c->buf = '';
    $c->send("GET $path HTTP/1.1\r\nHost: x\r\n\r\n");
    rsw_read_until($c, fn($b) => str_contains($b, "\r\n\r\n") && preg_match('/Content-Length: (\d+)\r\n/', $b, $m) && strlen($b) >= strpos($b, "\r\n\r\n") + 4 + (int) $m[1], 5);
    return substr($c->buf, strpos($c->buf, "\r\n\r\n") + 4);
}

function one_shot(int $port, string $path = '/'): string
{
    $c = new RswConn($port);
    $body = get($c, $path);
    $c->close();
    return $body;
}

// dispatch_mode 2 (by fd): every request of a keep-alive connection goes to one worker.
$t = new ServerTest(server_fn(2), ['ready_count' => 2]);
$t->start();
$c = new RswConn($t->port);
$seen = [];
for ($i = 0; $i < 8; $i++) {
    $seen[] = get($c);
}
$c->close();
rsw_check('mode 2: one worker per connection', count(array_unique($seen)) === 1 && in_array($seen[0], ['0', '1'], true), $seen);
echo $t->stop(), "\n";

// dispatch_mode 4 (by client IP): new connections from 127.0.0.1 all go to one worker.
$t = new ServerTest(server_fn(4), ['ready_count' => 2]);
$t->start();
$seen = [];
for ($i = 0; $i < 8; $i++) {
    $seen[] = one_shot($t->port);
}
rsw_check('mode 4: one worker per client IP', count(array_unique($seen)) === 1 && in_array($seen[0], ['0', '1'], true), $seen);
echo $t->stop(), "\n";

// dispatch_mode 3 (idle worker): while one worker is blocked, every new connection goes to the other.
$t = new ServerTest(server_fn(3), ['ready_count' => 2]);
$t->start();
$busy = new RswConn($t->port);
$busy->send("GET /busy HTTP/1.1\r\nHost: x\r\n\r\n");
usleep(300000);
$seen = [];
for ($i = 0; $i < 6; $i++) {
    $seen[] = one_shot($t->port);
}
rsw_read_until($busy, fn($b) => str_contains($b, "\r\n\r\n") && strlen($b) > strpos($b, "\r\n\r\n") + 4, 5);
$busyWorker = substr($busy->buf, strpos($busy->buf, "\r\n\r\n") + 4);
$busy->close();
rsw_check('mode 3: all new connections on the idle worker', count(array_unique($seen)) === 1 && $seen[0] !== $busyWorker && in_array($busyWorker, ['0', '1'], true), [$busyWorker, $seen]);
// Both idle again: connections are spread over both.
$seen = [];
for ($i = 0; $i < 6; $i++) {
    $seen[] = one_shot($t->port);
}
rsw_check('mode 3: both workers serve once idle', count(array_unique($seen)) === 2, $seen);
echo $t->stop(), "\n";
?>
--EXPECT--
mode 2: one worker per connection: OK
exit=0
mode 4: one worker per client IP: OK
exit=0
mode 3: all new connections on the idle worker: OK
mode 3: both workers serve once idle: OK
exit=0
