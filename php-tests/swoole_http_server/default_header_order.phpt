--TEST--
swoole_http_server: header values lose trailing white space; cookies follow the other headers; default response headers come after the script's in Swoole's order (Server, Date, Connection, Content-Type, Content-Length), in both modes and with a HEAD request
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach ([SWOOLE_BASE, SWOOLE_PROCESS] as $mode) {
    rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
        switch ($req->server['request_uri']) {
            case '/mine':
                $resp->header('X-First', "1 \t ");
                $resp->cookie('k', 'v');
                $resp->header('Content-Type', 'text/plain');
                break;
            case '/date':
                $resp->header('Date', 'Thu, 01 Jan 2026 00:00:00 GMT');
                break;
            case '/close':
                $resp->header('Connection', 'close');
                break;
        }
        $resp->end('hello');
    }, [], $mode), function ($port) {
        foreach (['/', '/mine', '/date', '/close'] as $path) {
            $c = new RswConn($port);
            $c->send("GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            $r = $c->readResponse();
            echo $path, ': ', implode(', ', array_map(fn($l) => $l[0], $r['header_lines'])), "\n";
            if ($path === '/mine') {
                echo 'trailing white space dropped: ', json_encode(str_contains($r['raw'], "X-First: 1\r\n")), "\n";
            }
        }
        $c = new RswConn($port);
        $c->send("HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        $r = $c->readResponse(true);
        echo 'HEAD: ', implode(', ', array_map(fn($l) => $l[0], $r['header_lines'])), "\n";
        [, $h] = rsw_http_get($port, '/date');
        echo 'date kept: ', $h['date'], "\n";
    });
}
?>
--EXPECT--
/: Server, Date, Connection, Content-Type, Content-Length
/mine: X-First, Content-Type, Set-Cookie, Server, Date, Connection, Content-Length
trailing white space dropped: true
/date: Date, Server, Connection, Content-Type, Content-Length
/close: Connection, Server, Date, Content-Type, Content-Length
HEAD: Server, Date, Connection, Content-Type, Content-Length
date kept: Thu, 01 Jan 2026 00:00:00 GMT
/: Server, Date, Connection, Content-Type, Content-Length
/mine: X-First, Content-Type, Set-Cookie, Server, Date, Connection, Content-Length
trailing white space dropped: true
/date: Date, Server, Connection, Content-Type, Content-Length
/close: Connection, Server, Date, Content-Type, Content-Length
HEAD: Server, Date, Connection, Content-Type, Content-Length
date kept: Thu, 01 Jan 2026 00:00:00 GMT
