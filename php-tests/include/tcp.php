<?php
// Helpers for the Swoole\Server (raw TCP/UDP) phpt tests: a server fn like rsw_http_server_fn, and bounded raw-socket reads.

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

/**
 * A $serverFn for ServerTest/rsw_run_server: a Swoole\Server with $settings (worker_num defaults to 1)
 * and the callbacks in $events. $setup($server) may add ports before start(). rsw_server() returns it.
 */
function rsw_tcp_server_fn(array $events, array $settings = [], int $mode = SWOOLE_BASE, int $sockType = SWOOLE_SOCK_TCP, ?callable $setup = null): Closure
{
    return static function (int $port, callable $ready, string $host) use ($events, $settings, $mode, $sockType, $setup): void {
        $server = new Swoole\Server($host, $port, $mode, $sockType);
        $GLOBALS['__rsw_server'] = $server;
        $server->set($settings + ['worker_num' => 1]);
        $userStart = $events['workerStart'] ?? null;
        unset($events['workerStart']);
        $server->on('workerStart', static function (...$args) use ($ready, $userStart): void {
            if ($userStart !== null) {
                $userStart(...$args);
            }
            $ready();
        });
        foreach ($events as $name => $cb) {
            $server->on($name, $cb);
        }
        if ($setup !== null) {
            $setup($server);
        }
        $server->start();
    };
}

/** Reads from $c until $have($c->buf) holds, EOF, or $timeout seconds. Returns $have's final answer. */
function rsw_read_until(RswConn $c, callable $have, float $timeout = 5.0): bool
{
    $deadline = microtime(true) + $timeout;
    while (!$have($c->buf)) {
        $left = $deadline - microtime(true);
        if ($left <= 0 || !$c->fill(min($left, 0.2))) {
            return (bool) $have($c->buf);
        }
    }
    return true;
}

/** Log lines of the server that start with $prefix (the test servers echo "prefix ..." lines). */
function rsw_log_lines(string $log, string $prefix): array
{
    return array_values(array_filter(explode("\n", $log), fn($l) => str_starts_with($l, $prefix)));
}
