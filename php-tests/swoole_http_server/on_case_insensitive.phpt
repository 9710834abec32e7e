--TEST--
swoole_http_server: on() event names are case-insensitive ('Request', 'REQUEST')
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Registers the request callback under differently cased names; each server must call it.
require __DIR__ . '/../include/bootstrap.php';
foreach (['Request', 'REQUEST', 'rEqUeSt'] as $name) {
    rsw_run_server(function ($port) use ($name) {
        $http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE);
        $http->set(['worker_num' => 1]);
        $http->on($name, function ($req, $resp) use ($name) { $resp->end("handled by $name"); });
        $http->start();
    }, function ($port) {
        [$status, , $body] = rsw_http_get($port, '/');
        echo $status, ' ', $body, "\n";
    });
}
?>
--EXPECT--
200 handled by Request
200 handled by REQUEST
200 handled by rEqUeSt
