--TEST--
swoole_websocket_server: CloseFrame is a subclass of Frame (a `Frame $frame` parameter takes it) and keeps its own properties and packing
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\WebSocket\CloseFrame;
use Swoole\WebSocket\Frame;

var_dump(get_parent_class(CloseFrame::class));
$c = new CloseFrame();
var_dump($c instanceof Frame);
$take = static fn (Frame $f): string => get_class($f) . ' opcode=' . $f->opcode;
echo $take($c), "\n";
$c->code = 4000;
$c->reason = 'bye';
$c->fd = 7;
var_dump($c->fd, $c->code, $c->reason);
echo bin2hex((string)$c), "\n";
echo bin2hex(CloseFrame::pack('hi')), "\n";
$u = Frame::unpack((string)$c);
echo get_class($u), ' ', $u->code, ' ', $u->reason, "\n";
?>
--EXPECT--
string(22) "Swoole\WebSocket\Frame"
bool(true)
Swoole\WebSocket\CloseFrame opcode=8
int(7)
int(4000)
string(3) "bye"
88050fa0627965
81026869
Swoole\WebSocket\CloseFrame 4000 bye
