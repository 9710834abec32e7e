--TEST--
swoole_websocket_server: a Frame's properties may be unset, as Swoole's (an unset one packs as its empty value: data '', opcode 0, close code 1000, reason '')
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\WebSocket\Frame;
use Swoole\WebSocket\CloseFrame;

$f = new Frame;
$f->data = 'abc';
unset($f->data);
echo bin2hex(Frame::pack($f)), "\n";
$f = new Frame;
$f->data = 'abc';
unset($f->opcode);
echo bin2hex((string) $f), "\n";
$c = new CloseFrame;
$c->code = 1001;
$c->reason = 'abc';
unset($c->reason);
echo bin2hex(Frame::pack($c)), "\n";
unset($c->code);
echo bin2hex((string) $c), "\n";
// A name the class does not declare: nothing happens, as for any object.
unset($f->nothing);
echo "done\n";
?>
--EXPECT--
8100
8003616263
880203e9
880203e8
done
