<?php
// HTTP server driven by tests/integration/test_fast_path.py: php -n -d extension=$RSWOOLE_SO fast_path_server.php PORT
// One route per kind of answer, so the fast path and hyper can be compared byte for byte
// (RSWOOLE_HTTP_FAST=0 sends every request through hyper). Logs at debug level.

$port = (int) ($argv[1] ?? 0);
$http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE);
$http->set([
    'worker_num' => 1,
    'log_level' => SWOOLE_LOG_DEBUG,
    'package_max_length' => 1024 * 1024,
]);
$http->on('request', function (Swoole\Http\Request $req, Swoole\Http\Response $resp) {
    $path = $req->server['request_uri'];
    switch ($path) {
        case '/echo':
            $resp->header('Content-Type', 'application/json');
            $resp->end(json_encode([
                'method' => $req->server['request_method'],
                'uri' => $req->server['request_uri'],
                'protocol' => $req->server['server_protocol'],
                'query' => $req->get ?? [],
                'post' => $req->post ?? [],
                'cookie' => $req->cookie ?? [],
                'headers' => $req->header,
                'body' => $req->rawContent(),
            ]));
            break;
        case '/status':
            $resp->status((int) ($req->get['c'] ?? 200));
            $resp->end('status');
            break;
        case '/headers':
            $resp->header('X-One', '1');
            $resp->header('x-two-words', 'two');
            $resp->header('X-List', ['a', 'b']);
            $resp->cookie('sid', 'abc', 0, '/');
            $resp->cookie('theme', 'dark');
            $resp->header('Content-Type', 'text/plain; charset=utf-8');
            $resp->end('headers');
            break;
        case '/write':
            $resp->write('part1,');
            $resp->write('part2');
            $resp->end();
            break;
        case '/reason':
            $resp->status(299, 'Custom Reason');
            $resp->end('reason');
            break;
        case '/exact':
            $resp->header('x-ExAcT', 'kept', false);
            $resp->end('exact');
            break;
        case '/close':
            $resp->header('Connection', 'close');
            $resp->end('bye');
            break;
        case '/length':
            $resp->header('Content-Length', '6');
            $resp->end('length');
            break;
        case '/date':
            $resp->header('Date', 'Thu, 01 Jan 2015 00:00:00 GMT');
            $resp->end('date');
            break;
        case '/sleep':
            Swoole\Coroutine::sleep(0.05);
            $resp->end('slept');
            break;
        case '/big':
            $resp->end(str_repeat('0123456789abcdef', 8192));
            break;
        case '/empty':
            $resp->end();
            break;
        case '/throw':
            throw new RuntimeException('handler failed');
        case '/forget':
            break;
        default:
            $resp->end('hello');
    }
});
$http->start();
