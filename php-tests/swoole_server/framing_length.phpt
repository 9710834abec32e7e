--TEST--
swoole_server: open_length_check (N, v with offsets, Q) gives one receive per frame whatever the segmentation; oversize frame closes with a warning
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$recv = function (Swoole\Server $s, $fd, $rid, $data) {
    $s->send($fd, '[' . strlen($data) . ']');
};
$portFile = tempnam(sys_get_temp_dir(), 'rsw_len_');
$t = rsw_run_server(rsw_tcp_server_fn(['receive' => $recv], [
    'open_length_check' => true, 'package_length_type' => 'N', 'package_length_offset' => 0,
    'package_body_offset' => 4, 'package_max_length' => 100000,
], SWOOLE_BASE, SWOOLE_SOCK_TCP, function (Swoole\Server $s) use ($portFile) {
    // A 2-byte magic, a little-endian u16 length counting the whole frame.
    $p = $s->listen('127.0.0.1', 0, SWOOLE_SOCK_TCP);
    $p->set(['open_length_check' => true, 'package_length_type' => 'v', 'package_length_offset' => 2, 'package_body_offset' => 0]);
    $q = $s->listen('127.0.0.1', 0, SWOOLE_SOCK_TCP);
    $q->set(['open_length_check' => true, 'package_length_type' => 'Q', 'package_body_offset' => 8]);
    file_put_contents($portFile, $p->port . ' ' . $q->port);
}), function (int $port, ServerTest $t) use ($portFile) {
    $frame = fn(string $body) => pack('N', strlen($body)) . $body;
    $c = new RswConn($port);
    $c->send($frame('a') . $frame(str_repeat('b', 10)) . $frame(''));      // coalesced
    rsw_read_until($c, fn($b) => substr_count($b, ']') >= 3, 3);
    echo 'coalesced: ', $c->buf, "\n";
    $c->buf = '';
    $big = $frame(str_repeat('x', 50000));                                   // split in 7-byte pieces
    foreach (str_split($big, 7000) as $piece) {
        $c->send($piece);
        usleep(3000);
    }
    rsw_read_until($c, fn($b) => str_contains($b, ']'), 3);
    usleep(100000);
    $c->fill(0.1);
    echo 'split: ', $c->buf, "\n";
    $c->buf = '';
    $c->send(pack('N', 200000));                                              // announces > package_max_length
    rsw_check('oversize: closed', $c->closedByPeer(3));
    rsw_check('oversize: warning logged', rsw_wait_until(fn() => str_contains($t->log(), 'package_max_length'), 3), $t->log());

    [$p2, $p3] = array_map('intval', explode(' ', file_get_contents($portFile)));
    $v = new RswConn($p2);
    $vf = fn(string $body) => "\xAB\xCD" . pack('v', 4 + strlen($body)) . $body;
    $v->send($vf('hi') . $vf('there'));
    rsw_read_until($v, fn($b) => substr_count($b, ']') >= 2, 3);
    echo "v port: ", $v->buf, "\n";
    $q = new RswConn($p3);
    $q->send(pack('Q', 3) . 'abc' . pack('Q', 1));
    usleep(50000);
    $q->send('z');
    rsw_read_until($q, fn($b) => substr_count($b, ']') >= 2, 3);
    echo "Q port: ", $q->buf, "\n";
    @unlink($portFile);
});
?>
--EXPECT--
coalesced: [5][14][4]
split: [50004]
oversize: closed: OK
oversize: warning logged: OK
v port: [6][9]
Q port: [11][9]
