<?php
// examples/http_server.php: the hello-world server `make run` starts.
// Run: php -d extension=rswoole examples/http_server.php  (then curl http://127.0.0.1:9501/)

$port = (int) (getenv('PORT') ?: 9501);
$http = new Swoole\Http\Server('127.0.0.1', $port);
$http->set(['worker_num' => (int) (getenv('WORKERS') ?: 2)]);

$http->on('start', function (Swoole\Http\Server $server) use ($port) {
    echo "rswoole http server is started at http://127.0.0.1:{$port}\n";
});

$http->on('request', function (Swoole\Http\Request $request, Swoole\Http\Response $response) {
    $response->header('Content-Type', 'text/plain');
    $response->end("Hello from rswoole, worker #{$GLOBALS['http']->worker_id}\n");
});

$http->start();
