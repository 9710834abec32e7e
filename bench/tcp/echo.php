<?php
// bench/tcp/echo.php: TCP echo server for bench/tcp.sh: Swoole\Server in SWOOLE_BASE, 1 worker,
// onReceive answers with $server->send($fd, $data). open_tcp_nodelay is set explicitly so that the
// socket options match the Go server's (Go sets TCP_NODELAY on every connection).
// Environment: RSW_PORT (default 9501); RSW_PIDFILE: workerStart writes the worker's pid there.
$port = (int) (getenv('RSW_PORT') ?: 9501);
$server = new Swoole\Server('127.0.0.1', $port, SWOOLE_BASE, SWOOLE_SOCK_TCP);
$server->set(['worker_num' => 1, 'open_tcp_nodelay' => true]);
$server->on('workerStart', function (Swoole\Server $server, int $workerId) {
    if (($f = getenv('RSW_PIDFILE')) !== false && $f !== '') {
        file_put_contents($f, getmypid());
    }
});
$server->on('receive', function (Swoole\Server $server, int $fd, int $reactorId, string $data) {
    $server->send($fd, $data);
});
$server->start();
