--TEST--
swoole_server: enable_delay_receive holds a connection's data until confirm($fd); $server->connections is keyed from 1 like Swoole's iterator
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$t = rsw_run_server(rsw_tcp_server_fn([
    'connect' => function (Swoole\Server $s, $fd) {
        Swoole\Timer::after(400, fn() => $s->confirm($fd));
    },
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $s->send($fd, json_encode(iterator_to_array($s->connections)) . "\n");
    },
], ['enable_delay_receive' => true]), function (int $port) {
    $c = new RswConn($port);
    $t0 = microtime(true);
    $c->send('hello');
    rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 3);
    $took = microtime(true) - $t0;
    rsw_check('the data is read only after confirm()', $took >= 0.35 && $took < 2, $took);
    rsw_check('connections keyed from 1', array_keys(json_decode($c->buf, true) ?? []) === [1], $c->buf);
});
?>
--EXPECT--
the data is read only after confirm(): OK
connections keyed from 1: OK
