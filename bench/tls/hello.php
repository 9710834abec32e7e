<?php // bench/tls.sh: HTTPS (+ HTTP/2 by ALPN) hello world, the same script on rswoole and on real Swoole.
// RSW_PORT, RSW_DIR (certificates) from the environment; 1 worker, SWOOLE_BASE.
$port = (int) getenv('RSW_PORT');
$dir = getenv('RSW_DIR');
$http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE, SWOOLE_SOCK_TCP | SWOOLE_SSL);
$http->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING, 'open_http2_protocol' => true,
            'ssl_cert_file' => "$dir/server.pem", 'ssl_key_file' => "$dir/server.key"]);
$http->on('request', function ($request, Swoole\Http\Response $response) {
    $response->end("<h1>\nHello Swoole.\n</h1>");
});
$http->start();
