--TEST--
swoole_websocket_server: Frame::pack() of a close frame keeps a reason of up to 125 bytes whole, as Swoole (the payload may pass 125 bytes), and unpack() reads it back; 126 bytes are refused
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\WebSocket\Frame;
use Swoole\WebSocket\CloseFrame;

foreach ([123, 124, 125] as $n) {
    $f = new CloseFrame;
    $f->code = 4000;
    $f->reason = str_repeat('r', $n);
    $p = Frame::pack($f);
    $u = Frame::unpack($p);
    echo $n, ': ', strlen($p), ' ', bin2hex(substr($p, 0, 4)), ' ', strlen($u->reason), ' ', $u->code, ' ', strlen((string) $f), "\n";
}
$f = new CloseFrame;
$f->reason = str_repeat('r', 126);
var_dump(@Frame::pack($f));
?>
--EXPECT--
123: 127 887d0fa0 123 4000 127
124: 130 887e007e 124 4000 130
125: 131 887e007f 125 4000 131
string(0) ""
