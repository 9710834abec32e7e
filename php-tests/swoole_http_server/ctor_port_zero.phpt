--TEST--
swoole_http_server: port 0 binds a free port, readable from $server->port, that serves requests
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Constructing with port 0 must pick a real port, expose it as ->port, and serve on it.
require __DIR__ . '/../include/bootstrap.php';
$portFile = rsw_tempfile('rsw_port_');
$t = new ServerTest(function ($unused, $ready) use ($portFile) {
    $http = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_BASE);
    $http->set(['worker_num' => 1]);
    file_put_contents($portFile, (string) $http->port);
    $http->on('workerStart', function () use ($ready) { $ready(); });
    $http->on('request', function ($req, $resp) use ($http) {
        $resp->end('port=' . $http->port);
    });
    $http->start();
}, ['wait_port' => false, 'ready_count' => 1]);
$t->start();
try {
    $port = (int) file_get_contents($portFile);
    var_dump($port > 0 && $port < 65536);
    [$status, , $body] = rsw_http_get($port, '/');
    var_dump($status);
    var_dump($body === "port=$port");
} finally {
    echo $t->stop(), "\n";
    @unlink($portFile);
}
?>
--EXPECT--
bool(true)
int(200)
bool(true)
exit=0
