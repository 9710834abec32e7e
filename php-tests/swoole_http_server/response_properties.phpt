--TEST--
swoole_http_server: Response has the properties fd, socket, header, cookie and trailer (what the script set), Request lists cookie before get and files before post
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $out = [array_keys(get_object_vars($req)), array_keys(get_object_vars($resp))];
    $out[] = [$resp->header, $resp->cookie, $resp->trailer, $resp->socket];
    $resp->header('X-One', '1');
    $resp->header('x-two', ['a', 'b']);
    $resp->cookie('name', 'value', 0, '/', '', false, true);
    $resp->trailer('Content-MD5', 'abc');
    $out[] = [$resp->header, $resp->cookie, $resp->trailer];
    $resp->end(json_encode($out));
}), function ($port) {
    echo rsw_http_get($port, '/')[2], "\n";
});
?>
--EXPECT--
[["fd","streamId","header","server","cookie","get","files","post","tmpfiles"],["fd","socket","header","cookie","trailer"],[null,null,null,null],[{"X-One":"1","X-Two":["a","b"]},["name=value; path=\/; HttpOnly"],{"content-md5":"abc"}]]
