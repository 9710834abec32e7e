--TEST--
swoole_server: SWOOLE_SOCK_UNIX_STREAM servers (BASE and PROCESS) and a unix listen() port: receive/send, getClientInfo() for a unix peer, the socket file removed at shutdown
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

function unix_ask(string $path, string $msg): string {
    $c = @stream_socket_client("unix://$path", $errno, $errstr, 3);
    if ($c === false) {
        return "connect failed: $errstr";
    }
    stream_set_timeout($c, 3);
    fwrite($c, $msg);
    $out = (string) fread($c, 65536);
    fclose($c);
    return $out;
}

$receive = function (Swoole\Server $s, $fd, $rid, $data) {
    $i = $s->getClientInfo($fd);
    $s->send($fd, "$data|type={$i['socket_type']}|ip=[{$i['remote_ip']}]|port={$i['remote_port']}|sport={$i['server_port']}");
};
foreach ([SWOOLE_BASE => 'BASE', SWOOLE_PROCESS => 'PROCESS'] as $mode => $name) {
    $path = sys_get_temp_dir() . "/rsw_unix_" . getmypid() . "_$mode.sock";
    @unlink($path);
    $t = new ServerTest(static function (int $port, callable $ready) use ($path, $mode, $receive): void {
        $s = new Swoole\Server($path, 0, $mode, SWOOLE_SOCK_UNIX_STREAM);
        echo "host={$s->host} port={$s->port} type={$s->type}\n";
        $s->set(['worker_num' => 2]);
        $s->on('workerStart', function () use ($ready) { $ready(); });
        $s->on('receive', $receive);
        $s->start();
        echo "start returned\n";
    }, ['ready_count' => 2, 'wait_port' => false]);
    $t->start();
    try {
        echo "$name: ", unix_ask($path, 'ping'), "\n";
        echo "$name: ", unix_ask($path, 'again'), "\n";
        echo "$name file exists while running: ", var_export(file_exists($path), true), "\n";
    } finally {
        echo "$name stop: ", $t->stop(), "\n";
    }
    echo "$name file exists after shutdown: ", var_export(file_exists($path), true), "\n";
    echo $t->log() === "host=$path port=0 type=" . SWOOLE_SOCK_UNIX_STREAM . "\nstart returned\n" ? "log ok\n" : "log: {$t->log()}\n";
}

// A unix port next to a TCP one (PROCESS mode: the master hands it over).
$path = sys_get_temp_dir() . "/rsw_unix_port_" . getmypid() . ".sock";
@unlink($path);
rsw_run_server(rsw_tcp_server_fn(['receive' => $receive], [], SWOOLE_PROCESS, SWOOLE_SOCK_TCP, function (Swoole\Server $s) use ($path) {
    $p = $s->listen($path, 0, SWOOLE_SOCK_UNIX_STREAM);
    echo get_class($p), " {$p->type}\n";
}), function (int $port) use ($path) {
    echo 'port: ', unix_ask($path, 'via-port'), "\n";
    $c = new RswConn($port);
    $c->send('tcp');
    rsw_read_until($c, fn($b) => str_contains($b, 'sport='), 3);
    echo 'tcp: ', preg_replace('/port=\d+/', 'port=N', $c->buf), "\n";
}, 10, ['ready_count' => 1]); // the TCP port listens from the constructor, the unix one from listen(): wait for workerStart
echo 'port file exists after shutdown: ', var_export(file_exists($path), true), "\n";

// A path that is taken fails like Swoole.
$busy = sys_get_temp_dir() . "/rsw_unix_busy_" . getmypid() . ".sock";
touch($busy);
try {
    new Swoole\Server($busy, 0, SWOOLE_BASE, SWOOLE_SOCK_UNIX_STREAM);
} catch (Swoole\Exception $e) {
    echo get_class($e), ': ', str_replace($busy, 'PATH', $e->getMessage()), ' ', $e->getCode(), "\n";
}
@unlink($busy);
?>
--EXPECT--
BASE: ping|type=5|ip=[]|port=0|sport=0
BASE: again|type=5|ip=[]|port=0|sport=0
BASE file exists while running: true
BASE stop: exit=0
BASE file exists after shutdown: false
log ok
PROCESS: ping|type=5|ip=[]|port=0|sport=0
PROCESS: again|type=5|ip=[]|port=0|sport=0
PROCESS file exists while running: true
PROCESS stop: exit=0
PROCESS file exists after shutdown: false
log ok
port: via-port|type=5|ip=[]|port=0|sport=0
tcp: tcp|type=1|ip=[127.0.0.1]|port=N|sport=N
port file exists after shutdown: false
Swoole\Exception: failed to listen server port[PATH:0], Error: Address already in use[98] 98
