--TEST--
swoole_server: Server\Port::$connections lists the open connections of that port only ($server->connections all of them), in BASE and PROCESS mode; a closed connection leaves its port's list
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

foreach ([SWOOLE_BASE, SWOOLE_PROCESS] as $mode) {
    echo $mode === SWOOLE_BASE ? "BASE\n" : "PROCESS\n";
    $second = rsw_free_port();
    $reply = function (Swoole\Server $s, $fd, $rid, $data) {
        if (trim($data) === 'id') {
            $s->send($fd, "$fd\n");
            return;
        }
        $ports = $s->ports;
        $s->send($fd, json_encode([
            'all' => array_values(iterator_to_array($s->connections)),
            'p0' => array_values(iterator_to_array($ports[0]->connections)),
            'p1' => array_values(iterator_to_array($ports[1]->connections)),
        ]) . "\n");
    };
    $setup = function (Swoole\Server $server) use ($second, $reply) {
        $p = $server->listen('127.0.0.1', $second, SWOOLE_SOCK_TCP);
        $p->on('receive', $reply);
    };
    rsw_run_server(rsw_tcp_server_fn(['receive' => $reply], ['worker_num' => 1], $mode, SWOOLE_SOCK_TCP, $setup),
        function (int $port) use ($second) {
            $ids = [0 => [], 1 => []];
            $conns = [];
            foreach ([[$port, 0], [$port, 0], [$second, 1], [$second, 1], [$second, 1]] as [$p, $which]) {
                $c = new RswConn($p);
                $c->send("id\n");
                rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 3);
                $ids[$which][] = (int) $c->buf;
                $conns[] = $c;
            }
            $ask = function (RswConn $c) {
                $c->buf = '';
                $c->send("list\n");
                rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 3);
                return json_decode($c->buf, true);
            };
            $l = $ask($conns[0]);
            $all = array_merge($ids[0], $ids[1]);
            sort($all);
            rsw_check('server connections: all five', $l['all'] === $all, [$l, $ids]);
            rsw_check('ports[0]->connections: the main port\'s two', $l['p0'] === $ids[0], [$l, $ids]);
            rsw_check('ports[1]->connections: the listen() port\'s three', $l['p1'] === $ids[1], [$l, $ids]);
            $conns[4]->close();
            $gone = $ids[1][2];
            $ok = rsw_wait_until(function () use ($ask, $conns, $gone) {
                return !in_array($gone, $ask($conns[2])['p1'], true);
            }, 3);
            $l = $ask($conns[2]);
            rsw_check('a closed connection leaves its port\'s list', $ok && $l['p1'] === array_slice($ids[1], 0, 2) && $l['p0'] === $ids[0], [$l, $ids]);
        });
}
?>
--EXPECT--
BASE
server connections: all five: OK
ports[0]->connections: the main port's two: OK
ports[1]->connections: the listen() port's three: OK
a closed connection leaves its port's list: OK
PROCESS
server connections: all five: OK
ports[0]->connections: the main port's two: OK
ports[1]->connections: the listen() port's three: OK
a closed connection leaves its port's list: OK
