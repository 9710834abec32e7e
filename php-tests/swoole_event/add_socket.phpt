--TEST--
swoole_event: Event::add() calls the read callback with the stream when it is readable, isset/del, Event::write()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Event;
[$a, $b] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, 0);
stream_set_blocking($a, false);
$got = '';
var_dump(is_int(Event::add($a, function ($s) use (&$got, $a) {
    var_dump($s === $a);
    $got .= fread($s, 100);
    if (str_ends_with($got, '!')) {
        Event::del($s);
    }
})));
var_dump(Event::isset($a, SWOOLE_EVENT_READ), Event::isset($a, SWOOLE_EVENT_WRITE));
Swoole\Timer::after(20, function () use ($b) { var_dump(Event::write($b, 'hi')); });
Swoole\Timer::after(60, function () use ($b) { fwrite($b, '!'); });
Event::wait();
var_dump($got, Event::isset($a));
?>
--EXPECT--
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
string(3) "hi!"
bool(false)
