--TEST--
swoole_server: heartbeat_check_interval/heartbeat_idle_time close an idle TCP connection with a close event; a busy one stays; protect(); heartbeat(false) lists idle fds; keepalive/nodelay/buffer options accepted
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$t = rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        if (trim($data) === 'protect') {
            $s->protect($fd);
        }
        if (trim($data) === 'idle') {
            $s->send($fd, json_encode($s->heartbeat(false)) . "\n");
            return;
        }
        $s->send($fd, 'ok');
    },
    'close' => function ($s, $fd) { echo "close $fd\n"; },
], ['heartbeat_check_interval' => 1, 'heartbeat_idle_time' => 2, 'open_tcp_keepalive' => true,
    'tcp_keepidle' => 10, 'tcp_keepinterval' => 5, 'tcp_keepcount' => 3, 'open_tcp_nodelay' => true,
    'socket_buffer_size' => 1 << 20]), function (int $port, ServerTest $t) {
    $idle = new RswConn($port);
    $idle->send('x');
    rsw_read_until($idle, fn($b) => $b === 'ok', 3);
    $busy = new RswConn($port);
    $prot = new RswConn($port);
    $prot->send("protect\n");
    $t0 = microtime(true);
    $closedIdle = null;
    while (microtime(true) - $t0 < 5) {
        $busy->send('y');
        usleep(300000);
        if ($closedIdle === null && !$idle->fill(0.01)) {
            $closedIdle = microtime(true) - $t0;
        }
    }
    rsw_check('idle connection closed within idle+interval', $closedIdle !== null && $closedIdle >= 1.5 && $closedIdle <= 3.8, $closedIdle);
    $busy->buf = '';
    $busy->send("idle\n");
    rsw_read_until($busy, fn($b) => str_ends_with($b, "\n"), 3);
    rsw_check('busy connection open', !$busy->eof);
    rsw_check('protected connection open', !$prot->closedByPeer(0.1));
    $list = json_decode((string) strrchr("\n" . trim($busy->buf), "\n"), true) ?? json_decode(trim(str_replace('ok', '', $busy->buf)), true);
    rsw_check('heartbeat(false): protected and busy connections are not idle', is_array($list) && $list === [], $busy->buf);
    rsw_check('close event fired for the idle connection', count(rsw_log_lines($t->log(), 'close ')) >= 1, $t->log());
});
?>
--EXPECT--
idle connection closed within idle+interval: OK
busy connection open: OK
protected connection open: OK
heartbeat(false): protected and busy connections are not idle: OK
close event fired for the idle connection: OK
