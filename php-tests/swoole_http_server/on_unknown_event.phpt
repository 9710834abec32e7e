--TEST--
swoole_http_server: on() with an unknown event name is rejected and names the event
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Swoole 6 warns "unknown event types[...]" and returns false; an exception is also acceptable.
$http = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_BASE);
$msgs = [];
set_error_handler(function ($no, $msg) use (&$msgs) { $msgs[] = $msg; return true; });
try {
    $ret = $http->on('noSuchEvent', function () {});
    echo 'returned ', var_export($ret, true), "\n";
} catch (Throwable $e) {
    $msgs[] = $e->getMessage();
    echo "threw\n";
}
restore_error_handler();
var_dump(count(array_filter($msgs, fn($m) => stripos($m, 'noSuchEvent') !== false)) >= 1);
?>
--EXPECTREGEX--
(returned false|threw)
bool\(true\)
