--TEST--
swoole_http_server: unset() of a declared Request/Response property throws Swoole's "Property X of class Y cannot be unset" (a dynamic one goes as usual)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $out = [];
    foreach ([[$resp, 'header'], [$resp, 'fd'], [$req, 'server'], [$req, 'get']] as [$o, $p]) {
        try {
            unset($o->$p);
            $out[] = "unset $p";
        } catch (Error $e) {
            $out[] = $e->getMessage();
        }
    }
    $resp->header('X-Kept', 'yes');
    $resp->end(implode("\n", $out));
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    $r = $c->readResponse();
    echo $r['status'], ' ', rsw_header($r, 'x-kept'), "\n", $r['body'], "\n";
});
$ch = new Swoole\Coroutine\Channel(1);
try {
    unset($ch->capacity);
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
200 yes
Property header of class Swoole\Http\Response cannot be unset
Property fd of class Swoole\Http\Response cannot be unset
Property server of class Swoole\Http\Request cannot be unset
Property get of class Swoole\Http\Request cannot be unset
Property capacity of class Swoole\Coroutine\Channel cannot be unset
