--TEST--
swoole_server: the backlog setting is the listen queue length of the port (server setting, and a listen() port's own), in BASE and PROCESS mode; ss shows it
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc';
if (!is_executable('/usr/bin/ss') && !is_executable('/bin/ss')) die('skip ss (iproute2) not installed'); ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

/** The listen queue length of 127.0.0.1:$port, from `ss -ltn` (Send-Q of a listening socket). */
function listen_queue(int $port): ?int
{
    $out = shell_exec('ss -Hltn ' . escapeshellarg("sport = :$port") . ' 2>/dev/null');
    foreach (explode("\n", (string) $out) as $line) {
        $f = preg_split('/\s+/', trim($line));
        if (count($f) >= 4 && str_ends_with($f[3], ":$port")) {
            return (int) $f[2];
        }
    }
    return null;
}

foreach ([SWOOLE_BASE, SWOOLE_PROCESS] as $mode) {
    $second = rsw_free_port();
    $setup = function (Swoole\Server $server) use ($second) {
        $p = $server->listen('127.0.0.1', $second, SWOOLE_SOCK_TCP);
        $p->set(['backlog' => 77]);
        $p->on('receive', function ($s, $fd, $rid, $data) { $s->send($fd, $data); });
    };
    rsw_run_server(rsw_tcp_server_fn([
        'receive' => function (Swoole\Server $s, $fd, $rid, $data) { $s->send($fd, $data); },
    ], ['worker_num' => 1, 'backlog' => 1000], $mode, SWOOLE_SOCK_TCP, $setup), function (int $port) use ($second) {
        $q = listen_queue($port);
        rsw_check('main port backlog 1000', $q === 1000, [$q, shell_exec('ss -Hltn')]);
        rsw_check('listen() port backlog 77', listen_queue($second) === 77, listen_queue($second));
        $c = new RswConn($port);
        $c->send("x\n");
        rsw_read_until($c, fn($b) => $b === "x\n", 3);
        rsw_check('still serving', $c->buf === "x\n", $c->buf);
    }, 10, ['ready_count' => 1]); // wait for workerStart: the main port listens from the constructor, before listen() and start()
}
// Without the setting: Swoole's default, 512.
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) { $s->send($fd, $data); },
], ['worker_num' => 1]), function (int $port) {
    rsw_check('default backlog 512', listen_queue($port) === 512, listen_queue($port));
}, 10, ['ready_count' => 1]); // wait for workerStart: the main port listens from the constructor, before listen() and start()
?>
--EXPECT--
main port backlog 1000: OK
listen() port backlog 77: OK
still serving: OK
main port backlog 1000: OK
listen() port backlog 77: OK
still serving: OK
default backlog 512: OK
