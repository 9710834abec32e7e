--TEST--
swoole_http_server: cookie()/rawcookie() take a Swoole\Http\Cookie (its own encode flag), and refuse a non-string
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $enc = (new Swoole\Http\Cookie())->withName('enc')->withValue('a b')->withPath('/')->withHttpOnly(true);
    $raw = (new Swoole\Http\Cookie(false))->withName('raw')->withValue('x%20y');
    $bad = (new Swoole\Http\Cookie())->withName('bad;name')->withValue('v');
    $r = [$resp->cookie($enc), $resp->rawcookie($raw), $resp->setCookie($raw), @$resp->cookie($bad), @$resp->cookie([])];
    $resp->end(json_encode($r) . ' ' . json_encode($bad->toArray()['name']));
}), function ($port) {
    $r = rsw_request($port, 'GET', '/');
    echo $r['body'], "\n";
    foreach (rsw_header_all($r, 'set-cookie') as $l) {
        echo $l, "\n";
    }
});
?>
--EXPECT--
[true,true,true,false,false] ""
enc=a+b; path=/; HttpOnly
raw=x%20y
raw=x%20y
