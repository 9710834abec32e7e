--TEST--
swoole_server: an HTTP port added with listen() answers with its own request callback; a port without one uses the server's
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$p2 = rsw_free_port();
$p3 = rsw_free_port();
rsw_run_server(function (int $port, callable $ready, string $host) use ($p2, $p3) {
    $http = new Swoole\Http\Server($host, $port, SWOOLE_BASE);
    $http->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
    $own = $http->listen($host, $p2, SWOOLE_SOCK_TCP);
    $own->set(['open_http_protocol' => true]);
    $own->on('request', function ($req, $resp) { $resp->end("port's own"); });
    $inherit = $http->listen($host, $p3, SWOOLE_SOCK_TCP);
    $inherit->set(['open_http_protocol' => true]);
    $http->on('workerStart', function () use ($ready) { $ready(); });
    $http->on('request', function ($req, $resp) { $resp->end('server'); });
    $http->start();
}, function ($port) use ($p2, $p3) {
    foreach ([$port, $p2, $p3] as $p) {
        echo rsw_http_get($p, '/')[2], "\n";
    }
}, 10, ['ready_count' => 1]); // wait for workerStart: the main port listens from the constructor, before listen() and start()
?>
--EXPECT--
server
port's own
server
