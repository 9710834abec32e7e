--TEST--
swoole_server: max_idle_time closes a TCP connection that sent nothing for that long (with a close event); a port's own heartbeat_idle_time works without a server-wide heartbeat, and ports without one stay open
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$t = rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) { $s->send($fd, 'ok'); },
    'close' => function ($s, $fd) { echo "close $fd\n"; },
], ['max_idle_time' => 1]), function (int $port, ServerTest $t) {
    $quiet = new RswConn($port);
    $talk = new RswConn($port);
    $t0 = microtime(true);
    $closed = null;
    while (microtime(true) - $t0 < 2.5) {
        $talk->send('x');
        usleep(200000);
        if ($closed === null && $quiet->closedByPeer(0.01)) {
            $closed = microtime(true) - $t0;
        }
    }
    rsw_check('max_idle_time: the quiet connection is closed after about 1 s', $closed !== null && $closed >= 0.9 && $closed <= 1.6, $closed);
    rsw_check('max_idle_time: the talking one stays open', !$talk->closedByPeer(0.1));
    rsw_check('close event', in_array('close 1', rsw_log_lines($t->log(), 'close '), true), $t->log());
});

$p2 = rsw_free_port();
$t = rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) { $s->send($fd, 'ok'); },
], [], SWOOLE_BASE, SWOOLE_SOCK_TCP, function (Swoole\Server $s) use ($p2) {
    $s->listen(RSW_HOST, $p2, SWOOLE_SOCK_TCP)->set(['heartbeat_idle_time' => 1]);
}), function (int $port) use ($p2) {
    $main = new RswConn($port);
    $own = new RswConn($p2);
    usleep(1600000);
    rsw_check('the port with its own heartbeat_idle_time closes its idle connection', $own->closedByPeer(0.2));
    rsw_check('the main port (no heartbeat) keeps its idle connection', !$main->closedByPeer(0.1));
}, 10, ['ready_count' => 1]); // wait for workerStart: the main port listens from the constructor, before listen() and start()
?>
--EXPECT--
max_idle_time: the quiet connection is closed after about 1 s: OK
max_idle_time: the talking one stays open: OK
close event: OK
the port with its own heartbeat_idle_time closes its idle connection: OK
the main port (no heartbeat) keeps its idle connection: OK
