--TEST--
swoole_http_server: header($name, null) takes that header out and leaves the others in the order they were set (a header set after it goes last), as Swoole; repeated values of a name stay together, in both modes
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach ([SWOOLE_BASE, SWOOLE_PROCESS] as $mode) {
    rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
        $resp->header('X-A', '1');
        $resp->header('X-B', '2');
        $resp->header('X-C', '3');
        $resp->header('X-D', '4');
        $resp->header('X-B', null);
        $resp->header('X-E', ['5', '6']);
        $resp->header('X-A', '7');
        $resp->end('ok');
    }, [], $mode), function ($port) {
        $c = new RswConn($port);
        $c->send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        $r = $c->readResponse();
        $lines = array_filter($r['header_lines'], fn($l) => str_starts_with($l[0], 'X-'));
        echo implode(', ', array_map(fn($l) => $l[0] . '=' . $l[1], $lines)), "\n";
    });
}
?>
--EXPECT--
X-A=7, X-C=3, X-D=4, X-E=5, X-E=6
X-A=7, X-C=3, X-D=4, X-E=5, X-E=6
