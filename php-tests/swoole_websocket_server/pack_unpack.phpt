--TEST--
swoole_websocket_server: Server::pack()/unpack() and Frame::pack()/unpack(), (string) $frame, compression and mask flags
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
use Swoole\WebSocket\Server;
use Swoole\WebSocket\Frame;
use Swoole\WebSocket\CloseFrame;

echo bin2hex(Server::pack('hi')), "\n";
echo bin2hex(Server::pack('hi', WEBSOCKET_OPCODE_BINARY, 0)), "\n";
echo bin2hex(Frame::pack('abcd', WEBSOCKET_OPCODE_TEXT, SWOOLE_WEBSOCKET_FLAG_FIN | SWOOLE_WEBSOCKET_FLAG_MASK)), "\n";
// Control frames always get FIN; a close frame carries its code.
echo bin2hex(Server::pack('p', WEBSOCKET_OPCODE_PING, 0)), "\n";
$c = new CloseFrame;
$c->code = 4000;
$c->reason = 'bye';
echo bin2hex(Server::pack($c)), "\n";
echo bin2hex((string)$c), "\n";

$f = new Frame;
$f->data = 'OK';
echo bin2hex((string)$f), "\n";
echo bin2hex(Server::pack($f)), "\n";

$u = Server::unpack(Server::pack('hello', WEBSOCKET_OPCODE_BINARY));
var_dump(get_class($u), $u->data, $u->opcode, $u->flags, $u->finish, $u->fd);
$u = Frame::unpack(Frame::pack('abcd', WEBSOCKET_OPCODE_TEXT, SWOOLE_WEBSOCKET_FLAG_FIN | SWOOLE_WEBSOCKET_FLAG_MASK));
var_dump($u->data, $u->flags === (SWOOLE_WEBSOCKET_FLAG_FIN | SWOOLE_WEBSOCKET_FLAG_MASK));
$u = Server::unpack($c . '');
var_dump(get_class($u), $u->code, $u->reason);

// FLAG_COMPRESS deflates the message and sets RSV1; unpack inflates it.
$text = str_repeat('compress me ', 100);
$z = Server::pack($text, WEBSOCKET_OPCODE_TEXT, SWOOLE_WEBSOCKET_FLAG_FIN | SWOOLE_WEBSOCKET_FLAG_COMPRESS);
var_dump(ord($z[0]) === 0xc1, strlen($z) < strlen($text));
$u = Server::unpack($z);
var_dump($u->data === $text, $u->flags & SWOOLE_WEBSOCKET_FLAG_RSV1 ? 'rsv1' : 'no', $u->flags & SWOOLE_WEBSOCKET_FLAG_COMPRESS ? 'compress' : 'no');
// Not compressed without FIN.
var_dump(ord(Server::pack($text, WEBSOCKET_OPCODE_TEXT, SWOOLE_WEBSOCKET_FLAG_COMPRESS)[0]) === 0x01);

// Broken input.
var_dump(Server::unpack(''), Server::unpack("\x81"), Server::unpack("\x81\x05ab"));
var_dump(Server::pack('x', 16));
// As Swoole: pack() builds a ping of any size (a peer may refuse it).
$u = Server::unpack(Server::pack(str_repeat('x', 126), WEBSOCKET_OPCODE_PING));
var_dump(strlen($u->data), $u->opcode);
var_dump(is_callable([Server::class, 'pack']), (new ReflectionMethod(Server::class, 'unpack'))->isStatic());
?>
--EXPECTF--
81026869
02026869
81843235384553575b21
890170
88050fa0627965
88050fa0627965
81024f4b
81024f4b
string(22) "Swoole\WebSocket\Frame"
string(5) "hello"
int(2)
int(1)
bool(true)
int(0)
string(4) "abcd"
bool(true)
string(27) "Swoole\WebSocket\CloseFrame"
int(4000)
string(3) "bye"
bool(true)
bool(true)
bool(true)
string(4) "rsv1"
string(8) "compress"
bool(true)
bool(false)
bool(false)
bool(false)

Warning: Swoole\WebSocket\Server::pack(): opcode must be between 0 and 15 in %s on line %d
string(0) ""
int(126)
int(9)
bool(true)
bool(true)
