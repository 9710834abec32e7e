<?php
// HTTP server driven by tests/integration/test_http.py: php -n -d extension=$RSWOOLE_SO http_server.php PORT [WORKERS]
// Routes: /echo (JSON description of the request), /md5 (md5 and length of the body), /slow, anything else "hello".

$port = (int) ($argv[1] ?? 0);
$workers = (int) ($argv[2] ?? 2);
$http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE);
$http->set([
    'worker_num' => $workers,
    'package_max_length' => 1024 * 1024,
]);
$http->on('request', function (Swoole\Http\Request $req, Swoole\Http\Response $resp) use ($http) {
    $body = $req->rawContent();
    $body = $body === false ? '' : $body;
    switch ($req->server['request_uri']) {
        case '/echo':
            $resp->header('Content-Type', 'application/json');
            $resp->end(json_encode([
                'method' => $req->server['request_method'],
                'uri' => $req->server['request_uri'],
                'query' => $req->get ?? [],
                'headers' => $req->header,
                'body' => $body,
                'fd' => $req->fd,
                'worker_pid' => $http->worker_pid,
            ]));
            break;
        case '/md5':
            $resp->end(md5($body) . ' ' . strlen($body));
            break;
        case '/slow':
            usleep(100000);
            $resp->end('slow');
            break;
        default:
            $resp->end('hello');
    }
});
$http->start();
