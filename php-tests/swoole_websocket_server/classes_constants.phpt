--TEST--
swoole_websocket_server: class hierarchy, legacy alias, Frame/CloseFrame properties and WEBSOCKET_* constants
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
var_dump(get_parent_class('Swoole\WebSocket\Server'));
var_dump(is_subclass_of('Swoole\WebSocket\Server', 'Swoole\Server'));
var_dump(class_exists('swoole_websocket_server'));
$f = new Swoole\WebSocket\Frame();
var_dump($f->fd, $f->data, $f->opcode, $f->flags);
$f->data = "a\0b";
// (string) $frame is the packed frame, as in Swoole: 2 header bytes + 3.
var_dump(strlen($f->data), strlen((string)$f));
$c = new Swoole\WebSocket\CloseFrame();
var_dump($c->opcode, $c->code, $c->reason);
var_dump(WEBSOCKET_OPCODE_CONTINUATION, WEBSOCKET_OPCODE_TEXT, WEBSOCKET_OPCODE_BINARY,
    WEBSOCKET_OPCODE_CLOSE, SWOOLE_WEBSOCKET_OPCODE_PING, SWOOLE_WEBSOCKET_OPCODE_PONG);
var_dump(WEBSOCKET_STATUS_ACTIVE, WEBSOCKET_STATUS_FRAME, SWOOLE_WEBSOCKET_STATUS_CLOSING);
var_dump(SWOOLE_WEBSOCKET_FLAG_FIN, SWOOLE_WEBSOCKET_FLAG_MASK, WEBSOCKET_CLOSE_MESSAGE_TOO_BIG);
?>
--EXPECT--
string(18) "Swoole\Http\Server"
bool(true)
bool(true)
int(0)
string(0) ""
int(1)
int(1)
int(3)
int(5)
int(8)
int(1000)
string(0) ""
int(0)
int(1)
int(2)
int(8)
int(9)
int(10)
int(3)
int(3)
int(4)
int(1)
int(32)
int(1009)
