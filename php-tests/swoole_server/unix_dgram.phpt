--TEST--
swoole_server: SWOOLE_SOCK_UNIX_DGRAM server (BASE and PROCESS): onPacket's address is the sender's path, send($path) and sendto($path) answer it, the file goes at shutdown
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

foreach ([SWOOLE_BASE => 'BASE', SWOOLE_PROCESS => 'PROCESS'] as $mode => $name) {
    $path = sys_get_temp_dir() . "/rsw_udg_" . getmypid() . "_$mode.sock";
    $me = sys_get_temp_dir() . "/rsw_udg_client_" . getmypid() . "_$mode.sock";
    @unlink($path);
    @unlink($me);
    $t = new ServerTest(rsw_tcp_server_fn([
        'packet' => function (Swoole\Server $s, $data, $addr) {
            $s->send($addr['address'], "send:$data:port={$addr['port']}");
            $s->sendto($addr['address'], 0, "sendto:$data");
        },
    ], [], $mode, SWOOLE_SOCK_UNIX_DGRAM), ['ready_count' => 1, 'wait_port' => false, 'host' => $path, 'port' => 0]);
    $t->start();
    try {
        $c = socket_create(AF_UNIX, SOCK_DGRAM, 0);
        socket_bind($c, $me);
        socket_set_option($c, SOL_SOCKET, SO_RCVTIMEO, ['sec' => 3, 'usec' => 0]);
        socket_sendto($c, 'hi', 2, 0, $path);
        for ($n = 0; $n < 2; $n++) {
            $r = @socket_recvfrom($c, $buf, 65535, 0, $from);
            echo "$name: ", $r === false ? 'timeout' : str_replace($me, 'ME', $buf) . ' from ' . ($from === $path ? 'the server path' : $from), "\n";
        }
        socket_close($c);
        // Swoole\Client binds a path of its own, so the server can answer.
        $cl = new Swoole\Client(SWOOLE_SOCK_UNIX_DGRAM, SWOOLE_SOCK_SYNC);
        $cl->connect($path, 0, 3);
        $cl->send('cli');
        echo "$name client: ", $cl->recv(), ' ', $cl->recv(), "\n";
        $own = glob('/tmp/swoole-client.' . getmypid() . '.*.sock');
        $cl->close();
        echo "$name client path: ", count($own), ' then ', count(array_filter($own, 'file_exists')), "\n";
    } finally {
        echo "$name stop: ", $t->stop(), "\n";
    }
    @unlink($me);
    echo "$name file removed: ", var_export(!file_exists($path), true), "\n";
}
?>
--EXPECT--
BASE: send:hi:port=0 from the server path
BASE: sendto:hi from the server path
BASE client: send:cli:port=0 sendto:cli
BASE client path: 1 then 0
BASE stop: exit=0
BASE file removed: true
PROCESS: send:hi:port=0 from the server path
PROCESS: sendto:hi from the server path
PROCESS client: send:cli:port=0 sendto:cli
PROCESS client path: 1 then 0
PROCESS stop: exit=0
PROCESS file removed: true
