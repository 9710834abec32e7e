--TEST--
swoole_http_server: onConnect fires for each HTTP connection, before its requests, with the fd and reactor id
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/websocket.php';
$log = tempnam(sys_get_temp_dir(), 'rsw_hc_');
rsw_run_server(static function (int $port, callable $ready, string $host) use ($log): void {
    $s = new Swoole\Http\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('connect', function ($s, $fd, $rid) use ($log) {
        file_put_contents($log, "connect $fd $rid\n", FILE_APPEND);
    });
    $s->on('request', function ($req, $resp) use ($log) {
        file_put_contents($log, "request {$req->fd}\n", FILE_APPEND);
        $resp->end('x');
    });
    $s->start();
}, function (int $port) use ($log) {
    foreach ([1, 2] as $_) {
        $r = rsw_request($port, 'GET', '/', ['Connection' => 'close']);
        echo $r['body'], "\n";
    }
    echo implode("\n", rsw_wait_lines($log, 4)), "\n";
}, 10, ['ready_count' => 1, 'wait_port' => false]);
@unlink($log);
?>
--EXPECT--
x
x
connect 1 0
request 1
connect 2 0
request 2
