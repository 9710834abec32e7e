--TEST--
swoole_http_server: header names with separators ('"', '(', '/', '{', ...) are sent as Swoole sends them (Title-Case, or as given with $format false) in the order set, shown so in $response->header; a name with ':', a space or a line break is still refused
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->header('~', 'tilde');
    $resp->header('"', 'quote');
    $resp->header('x(', 'paren');
    $resp->header('x)', 'close');
    $resp->header('0', 'zero');
    $resp->header('/', 'slash');
    $resp->header('x{y}', 'braces', false);
    $resp->header('x(', 'paren again');
    $ok = [];
    foreach (['a:b', 'a b', "a\r\nb"] as $bad) {
        $ok[] = var_export(@$resp->header($bad, 'v'), true);
    }
    $resp->header('X-Refused', implode(',', $ok));
    $resp->header('X-Names', implode(' ', array_keys($resp->header)));
    $resp->end('ok');
}), function ($port) {
    $c = new RswConn($port);
    $c->send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    $c->fill(2.0);
    $head = substr($c->buf, 0, strpos($c->buf, "\r\n\r\n"));
    foreach (explode("\r\n", $head) as $line) {
        if (!preg_match('/^(Server|Date|Connection|Content-Type|Content-Length):/', $line)) {
            echo $line, "\n";
        }
    }
});
?>
--EXPECT--
HTTP/1.1 200 OK
~: tilde
": quote
X(: paren again
X): close
0: zero
/: slash
x{y}: braces
X-Refused: false,false,false
X-Names: ~ " X( X) 0 / x{y} X-Refused
