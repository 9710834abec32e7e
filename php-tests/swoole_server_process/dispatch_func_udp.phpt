--TEST--
swoole_server_process: dispatch_func picks the worker of each UDP packet ($fd is the client's IPv4 address as Swoole gives it) or discards it
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
function udp_ask(int $port, string $msg, int $wait = 3): string|false {
    $s = socket_create(AF_INET, SOCK_DGRAM, SOL_UDP);
    socket_set_option($s, SOL_SOCKET, SO_RCVTIMEO, ['sec' => $wait, 'usec' => 0]);
    socket_sendto($s, $msg, strlen($msg), 0, '127.0.0.1', $port);
    $r = @socket_recvfrom($s, $buf, 65535, 0, $from, $fromPort);
    socket_close($s);
    return $r === false ? false : $buf;
}
$udpPort = rsw_free_port();
$t = new ServerTest(rsw_tcp_server_fn([
    'packet' => function (Swoole\Server $s, $data, $info) {
        $s->sendto($info['address'], $info['port'], "w{$s->worker_id}");
    },
], [
    'worker_num' => 3,
    'dispatch_func' => function ($s, $fd, $type, $data) {
        if ($data === 'drop') {
            return SWOOLE_DISPATCH_RESULT_DISCARD_PACKET;
        }
        // 127.0.0.1 in memory order: 0x0100007f.
        return $type === 1 && $fd === 0x0100007f ? 2 : 0;
    },
], SWOOLE_PROCESS, SWOOLE_SOCK_UDP), ['ready_count' => 3, 'wait_port' => false, 'port' => $udpPort]);
$t->start();
try {
    $got = [];
    for ($i = 0; $i < 4; $i++) {
        $got[] = udp_ask($udpPort, "p$i");
    }
    rsw_check('every packet reaches the worker dispatch_func named', $got === ['w2', 'w2', 'w2', 'w2'], $got);
    rsw_check('a discarded packet gets no answer', udp_ask($udpPort, 'drop', 1) === false);
} finally {
    $t->stop();
}
?>
--EXPECT--
every packet reaches the worker dispatch_func named: OK
a discarded packet gets no answer: OK
