--TEST--
swoole_websocket_server: unpack() of a close frame reads its code and reason as Swoole 6.2.2 does (a payload without a code: WEBSOCKET_CLOSE_NORMAL); pack() and CloseFrame round trip
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
use Swoole\WebSocket\Server;
use Swoole\WebSocket\Frame;
use Swoole\WebSocket\CloseFrame;

foreach (["\x88\x00", "\x88\x01\x03", "\x88\x04\x03\xe8ok", "\x88\x02\x03\xe7", "\x88\x03\x0f\xa0\xff"] as $b) {
    $f = Server::unpack($b);
    printf("%-14s %s code=%d reason=%s data='%s' flags=%d\n", bin2hex($b), get_class($f), $f->code,
        bin2hex($f->reason), $f->data, $f->flags);
}
// A masked empty close frame, read through Frame::unpack.
$f = Frame::unpack("\x88\x80abcd");
var_dump($f->code, $f->reason, $f->flags === (SWOOLE_WEBSOCKET_FLAG_FIN | SWOOLE_WEBSOCKET_FLAG_MASK));
// The default CloseFrame and a string packed as a close frame (code 0, as Swoole packs it).
$c = new CloseFrame;
var_dump($c->code === WEBSOCKET_CLOSE_NORMAL, bin2hex((string)$c));
echo bin2hex(Server::pack('', WEBSOCKET_OPCODE_CLOSE)), ' ', bin2hex(Server::pack('bye', WEBSOCKET_OPCODE_CLOSE)), "\n";
// Round trip of every named code.
foreach ([WEBSOCKET_CLOSE_GOING_AWAY, WEBSOCKET_CLOSE_MESSAGE_TOO_BIG, SWOOLE_WEBSOCKET_CLOSE_TLS, 4999] as $code) {
    $c->code = $code;
    $c->reason = "r\xc3\xa9";
    $u = Server::unpack(Server::pack($c));
    echo $u->code, ' ', $u->reason === "r\xc3\xa9" ? 'same' : bin2hex($u->reason), "\n";
}
?>
--EXPECT--
8800           Swoole\WebSocket\CloseFrame code=1000 reason= data='' flags=1
880103         Swoole\WebSocket\CloseFrame code=1000 reason= data='' flags=1
880403e86f6b   Swoole\WebSocket\CloseFrame code=1000 reason=6f6b data='' flags=1
880203e7       Swoole\WebSocket\CloseFrame code=999 reason= data='' flags=1
88030fa0ff     Swoole\WebSocket\CloseFrame code=4000 reason=ff data='' flags=1
int(1000)
string(0) ""
bool(true)
bool(true)
string(8) "880203e8"
88020000 88050000627965
1001 same
1009 same
1015 same
4999 same
