--TEST--
swoole_server: open_mqtt_protocol gives one receive per MQTT packet (remaining length read byte by byte, several packets in one read, a multi-byte length), and a packet over package_max_length closes the connection
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$recv = function (Swoole\Server $s, $fd, $rid, $data) {
    $s->send($fd, '[' . dechex(ord($data[0])) . ':' . strlen($data) . ']');
};
rsw_run_server(rsw_tcp_server_fn(['receive' => $recv], [
    'open_mqtt_protocol' => true, 'package_max_length' => 100000,
]), function (int $port) {
    $c = new RswConn($port);
    $c->send("\xc0");                                   // PINGREQ, a byte at a time
    usleep(100000);
    $c->send("\x00");
    rsw_read_until($c, fn($b) => str_contains($b, ']'), 3);
    echo 'split: ', $c->buf, "\n";
    $c->buf = '';
    $body = str_repeat('p', 300);                       // remaining length 300: 0xac 0x02
    $c->send("\xc0\x00" . "\x30\xac\x02" . $body . "\xe0\x00");
    rsw_read_until($c, fn($b) => substr_count($b, ']') >= 3, 3);
    echo 'coalesced: ', $c->buf, "\n";
    $c->send("\x30\xff\xff\x7f");                       // announces ~2 MB
    rsw_check('oversize: closed', $c->closedByPeer(3));
});
?>
--EXPECT--
split: [c0:2]
coalesced: [c0:2][30:303][e0:2]
oversize: closed: OK
