--TEST--
swoole_http_server: cookie() with expires, path, domain, secure, httponly and samesite produces the Set-Cookie line
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The value is url-encoded; every attribute is present; a bare cookie() has no extra attributes.
require __DIR__ . '/../include/bootstrap.php';
const EXP = 1900000000;
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $resp->cookie('full', 'a b/c', EXP, '/path', 'example.com', true, true, 'Strict');
    $resp->cookie('plain', 'v');
    $resp->end('ok');
}), function ($port) {
    $r = rsw_request($port, 'GET', '/');
    $lines = rsw_header_all($r, 'set-cookie');
    var_dump(count($lines));
    $parse = function (string $line): array {
        $parts = array_map('trim', explode(';', $line));
        $attrs = ['_pair' => array_shift($parts)];
        foreach ($parts as $p) {
            [$k, $v] = array_pad(explode('=', $p, 2), 2, true);
            $attrs[strtolower($k)] = $v;
        }
        return $attrs;
    };
    $full = $parse($lines[0]);
    var_dump($full['_pair']);
    var_dump(strtotime(str_replace('-', ' ', $full['expires'])) === EXP);
    var_dump($full['path'], $full['domain'], $full['secure'], $full['httponly'], $full['samesite']);
    echo $lines[1], "\n";
});
?>
--EXPECT--
int(2)
string(12) "full=a+b%2Fc"
bool(true)
string(5) "/path"
string(11) "example.com"
bool(true)
bool(true)
string(6) "Strict"
plain=v
