--TEST--
swoole_server: open_eof_split gives one receive per message for coalesced and split segments; open_eof_check waits for the EOF; oversize closes with a warning
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$recv = function (Swoole\Server $s, $fd, $rid, $data) {
    $s->send($fd, '[' . strlen($data) . ':' . rtrim($data, "\r\n#") . ']');
};
$t = rsw_run_server(rsw_tcp_server_fn(['receive' => $recv], [
    'open_eof_split' => true, 'package_eof' => "\r\n", 'package_max_length' => 1024,
], SWOOLE_BASE, SWOOLE_SOCK_TCP, function (Swoole\Server $s) use ($recv) {
    $p = $s->listen('127.0.0.1', 0, SWOOLE_SOCK_TCP);
    $p->set(['open_eof_check' => true, 'package_eof' => '##']);
    file_put_contents(getenv('RSW_PORT2_FILE'), (string) $p->port);
}), function (int $port, ServerTest $t) {
    $c = new RswConn($port);
    $c->send("a\r\nbb\r\nccc\r\n");           // three messages, one segment
    rsw_read_until($c, fn($b) => substr_count($b, ']') >= 3, 3);
    echo 'coalesced: ', $c->buf, "\n";
    $c->buf = '';
    foreach (str_split("hello world\r\n") as $ch) { // one message, one byte at a time
        $c->send($ch);
        usleep(2000);
    }
    rsw_read_until($c, fn($b) => str_contains($b, ']'), 3);
    usleep(100000);
    $c->fill(0.1);
    echo 'split: ', $c->buf, "\n";
    $c->buf = '';
    $c->send(str_repeat('z', 2000));             // no EOF within package_max_length
    rsw_check('oversize: connection closed', $c->closedByPeer(3));
    rsw_check('oversize: warning logged', rsw_wait_until(fn() => str_contains($t->log(), 'package_max_length'), 3), $t->log());
    $c2 = new RswConn($port);
    $c2->send("still\r\n");
    rsw_read_until($c2, fn($b) => str_contains($b, ']'), 3);
    echo 'server still serves: ', $c2->buf, "\n";

    $port2 = (int) file_get_contents(getenv('RSW_PORT2_FILE'));
    $e = new RswConn($port2);
    $e->send('one#');
    usleep(100000);
    $e->send("#two##");
    rsw_read_until($e, fn($b) => str_contains($b, ']'), 3);
    usleep(100000);
    $e->fill(0.1);
    echo 'eof_check port: ', $e->buf, "\n";
});
?>
--ENV--
RSW_PORT2_FILE=/tmp/rsw_framing_eof_port2
--CLEAN--
<?php @unlink('/tmp/rsw_framing_eof_port2'); ?>
--EXPECT--
coalesced: [3:a][4:bb][5:ccc]
split: [13:hello world]
oversize: connection closed: OK
oversize: warning logged: OK
server still serves: [7:still]
eof_check port: [10:one##two]
