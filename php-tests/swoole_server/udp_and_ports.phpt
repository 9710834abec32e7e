--TEST--
swoole_server: a UDP server (packet, sendto), a UDP port next to TCP, $server->ports, and an HTTP server with an extra TCP port
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
function udp_ask(int $port, string $msg): string|false {
    $s = socket_create(AF_INET, SOCK_DGRAM, SOL_UDP);
    socket_set_option($s, SOL_SOCKET, SO_RCVTIMEO, ['sec' => 3, 'usec' => 0]);
    socket_sendto($s, $msg, strlen($msg), 0, '127.0.0.1', $port);
    $r = @socket_recvfrom($s, $buf, 65535, 0, $from, $fromPort);
    socket_close($s);
    return $r === false ? false : $buf;
}
// 1. A UDP server.
$udpPort = rsw_free_port();
$t = new ServerTest(rsw_tcp_server_fn([
    'packet' => function (Swoole\Server $s, $data, $info) {
        $s->sendto($info['address'], $info['port'], "pong:$data:" . implode(',', array_keys($info)));
    },
], [], SWOOLE_BASE, SWOOLE_SOCK_UDP), ['ready_count' => 1, 'wait_port' => false, 'port' => $udpPort]);
$t->start();
try {
    echo 'udp server: ', udp_ask($udpPort, 'ping'), "\n";
} finally {
    $t->stop();
}
// 2. TCP server with a UDP port; $server->ports.
$portsFile = tempnam(sys_get_temp_dir(), 'rsw_ports_');
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $s->send($fd, 'tcp:' . count($s->ports) . ':' . get_class($s->ports[1]));
    },
], [], SWOOLE_BASE, SWOOLE_SOCK_TCP, function (Swoole\Server $s) use ($portsFile) {
    $u = $s->addListener('127.0.0.1', 0, SWOOLE_SOCK_UDP);
    $u->on('packet', function ($s, $data, $info) {
        $s->sendto($info['address'], $info['port'], "udp-port:$data");
    });
    file_put_contents($portsFile, (string) $u->port);
}), function (int $port) use ($portsFile) {
    $c = new RswConn($port);
    $c->send('hi');
    rsw_read_until($c, fn($b) => str_starts_with($b, 'tcp:') && str_ends_with($b, 'Port'), 3);
    echo $c->buf, "\n";
    echo udp_ask((int) file_get_contents($portsFile), 'x'), "\n";
});
// 3. HTTP server with an extra raw TCP port (length framing on it).
rsw_run_server(static function (int $port, callable $ready, string $host) use ($portsFile): void {
    $http = new Swoole\Http\Server($host, $port);
    $http->set(['worker_num' => 1]);
    $http->on('request', function ($req, $resp) { $resp->end('http ok'); });
    $p = $http->listen('127.0.0.1', 0, SWOOLE_SOCK_TCP);
    $p->set(['open_eof_split' => true, 'package_eof' => "\r\n"]);
    $p->on('receive', function ($s, $fd, $rid, $data) { $s->send($fd, '<' . rtrim($data) . '>|'); });
    file_put_contents($portsFile, (string) $p->port);
    $http->start();
}, function (int $port) use ($portsFile) {
    echo rsw_http_get($port, '/')[2], "\n";
    $c = new RswConn((int) file_get_contents($portsFile));
    $c->send("line one\r\nline two\r\n");
    rsw_read_until($c, fn($b) => substr_count($b, '|') >= 2, 3);
    echo $c->buf, "\n";
});
@unlink($portsFile);
?>
--EXPECT--
udp server: pong:ping:server_socket,server_port,address,port,dispatch_time
tcp:2:Swoole\Server\Port
udp-port:x
http ok
<line one>|<line two>|
