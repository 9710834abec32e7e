--TEST--
swoole_event: the swoole_event_*() functions exist and work like Swoole\Event's methods; swoole_async_dns_lookup_coro() too
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
foreach (['add', 'del', 'set', 'isset', 'dispatch', 'defer', 'cycle', 'write', 'wait', 'exit'] as $f) {
    if (!function_exists("swoole_event_$f")) {
        echo "missing swoole_event_$f\n";
    }
}
[$a, $b] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
var_dump(swoole_event_add($a, function ($fp) {
    var_dump(fread($fp, 100));
    swoole_event_del($fp);
}) > 0);
var_dump(swoole_event_isset($a, SWOOLE_EVENT_READ));
var_dump(fwrite($b, "hello"));
swoole_event_wait();
var_dump(swoole_event_isset($a));
var_dump((new ReflectionFunction('swoole_async_dns_lookup_coro'))->getNumberOfParameters());
?>
--EXPECT--
bool(true)
bool(true)
int(5)
string(5) "hello"
bool(false)
int(3)
