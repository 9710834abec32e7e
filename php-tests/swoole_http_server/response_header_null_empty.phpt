--TEST--
swoole_http_server: header($k, null) unsets a header (a default of that name is not sent either); a header Swoole manages set to '' is not sent, and an empty Content-Encoding turns compression off
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$text = str_repeat("The quick brown fox jumps over the lazy dog. ", 270);
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($text) {
    switch ($req->server['request_uri']) {
        case '/null':
            $resp->header('Foo', 'Bar');
            $resp->header('X-Ret', var_export($resp->header('Foo', null), true));
            $resp->header('X-Multi', ['a', 'b']);
            $resp->header('x-multi', null);
            $resp->header('Server', null);
            $resp->header('Bar', 'Foo');
            $resp->end('null');
            break;
        case '/empty':
            $resp->header('Content-Type', '');
            $resp->header('X-Empty', '');
            $resp->end('empty');
            break;
        case '/nogzip':
            $resp->header('Content-Encoding', '');
            $resp->end($text);
            break;
    }
}, ['http_compression' => true]), function ($port) use ($text) {
    $r = rsw_request($port, 'GET', '/null');
    var_dump($r['status'], rsw_header($r, 'x-ret'), rsw_header($r, 'foo'), rsw_header($r, 'x-multi'), rsw_header($r, 'server'), rsw_header($r, 'bar'), $r['body']);
    $r = rsw_request($port, 'GET', '/empty');
    var_dump(rsw_header($r, 'content-type'), rsw_header($r, 'x-empty'), rsw_header($r, 'server'), $r['body']);
    $r = rsw_request($port, 'GET', '/nogzip', ['Accept-Encoding' => 'gzip']);
    var_dump(rsw_header($r, 'content-encoding'), $r['body'] === $text);
});
?>
--EXPECT--
int(200)
string(4) "true"
NULL
NULL
NULL
string(3) "Foo"
string(4) "null"
NULL
string(0) ""
string(18) "swoole-http-server"
string(5) "empty"
NULL
bool(true)
