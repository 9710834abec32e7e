--TEST--
swoole_websocket_server: the heartbeat closes a WebSocket connection that only receives pushes (as Swoole, it looks at the last time data arrived, not at writes)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/websocket.php';

$log = tempnam(sys_get_temp_dir(), 'rsw_ws_hb_');
rsw_run_server(static function (int $port, callable $ready, string $host) use ($log): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING,
        'heartbeat_check_interval' => 1, 'heartbeat_idle_time' => 2]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('open', function ($s, $req) {
        $fd = $req->fd;
        Swoole\Timer::tick(200, function ($id) use ($s, $fd) {
            if (!$s->exists($fd)) {
                Swoole\Timer::clear($id);
                return;
            }
            $s->push($fd, 'tick');
        });
    });
    $s->on('message', function () {});
    $s->on('close', function ($s, $fd) use ($log) {
        file_put_contents($log, "close\n", FILE_APPEND);
    });
    $s->start();
}, function (int $port) use ($log) {
    [$c] = rsw_ws_connect($port, '/');
    $t0 = microtime(true);
    $ticks = 0;
    // The client never sends: pushes arrive every 200 ms until the heartbeat
    // closes the connection (idle 2 s, checked every second).
    while (microtime(true) - $t0 < 8 && ($f = rsw_ws_read($c)) !== null) {
        $ticks++;
    }
    $took = microtime(true) - $t0;
    fclose($c);
    rsw_wait_lines($log, 1);
    echo 'pushes received: ', $ticks > 3 ? 'several' : $ticks, "\n";
    echo 'closed by the heartbeat: ', $took >= 1.5 && $took < 5 ? 'yes' : sprintf('no (%.1f s)', $took), "\n";
    echo file_get_contents($log);
}, 15, ['ready_count' => 1, 'wait_port' => false]);
@unlink($log);
?>
--EXPECT--
pushes received: several
closed by the heartbeat: yes
close
