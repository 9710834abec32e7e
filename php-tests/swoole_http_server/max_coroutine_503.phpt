--TEST--
swoole_http_server: workerStart runs in a coroutine; at max_coroutine a request is answered 503 with Swoole's warnings and the handler does not run
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$t = rsw_run_server(static function (int $port, callable $ready, string $host): void {
    Co::set(['max_coroutine' => 1]);
    $http = new Swoole\Http\Server($host, $port, SWOOLE_BASE);
    $http->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $http->on('workerStart', function () use ($ready) {
        echo "workerStart in coroutine: ", json_encode(Co::getCid() > 0), "\n";
        $ready();
        // Holds the only coroutine allowed.
        Co::yield();
    });
    $http->on('request', function ($req, $resp) {
        echo "never here\n";
        $resp->end('ran');
    });
    $http->start();
}, function (int $port) {
    [$status, , $body] = rsw_http_get($port, '/');
    var_dump($status);
}, 10, ['ready_count' => 1]);
$log = $t->log();
var_dump(str_contains($log, 'workerStart in coroutine: true'));
var_dump(str_contains($log, 'Warning: Swoole\Server::start(): exceed max number of coroutine 1'));
var_dump(str_contains($log, 'Warning: Swoole\Server::start(): Swoole\Http\Server->onRequest handler error'));
var_dump(str_contains($log, 'never here'));
?>
--EXPECT--
int(503)
bool(true)
bool(true)
bool(true)
bool(false)
