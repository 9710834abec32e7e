--TEST--
swoole_http_server: buffer_output_size refuses a larger end() in PROCESS mode (SWOOLE_ERROR_DATA_LENGTH_TOO_LARGE) and closes the connection unanswered, as Swoole; max_input_vars caps get, post and cookie with PHP's warning
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--INI--
max_input_vars=5
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$t = rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    static $big = null;
    if ($req->server['request_uri'] === '/big') {
        $ok = $resp->end(str_repeat('A', 2048));
        // Closed unanswered: a second end() fails too.
        $big = [$ok, swoole_last_error(), @$resp->end('x')];
        return;
    }
    if ($req->server['request_uri'] === '/last') {
        $resp->end(json_encode($big));
        return;
    }
    $resp->end(json_encode([count($req->get ?? []), count($req->post ?? []), count($req->cookie ?? [])]));
}, ['buffer_output_size' => 1024], SWOOLE_PROCESS), function ($port) {
    var_dump(rsw_http_get($port, '/big')[0]);
    echo rsw_http_get($port, '/last')[2], "\n";
    echo rsw_http_get($port, '/small')[2], "\n";
    $q = http_build_query(array_combine(array_map(fn ($i) => "k$i", range(1, 8)), range(1, 8)));
    $cookie = implode('; ', array_map(fn ($i) => "c$i=$i", range(1, 7)));
    $r = rsw_request($port, 'POST', "/vars?$q", ['Content-Type' => 'application/x-www-form-urlencoded', 'Cookie' => $cookie], $q);
    echo $r['body'], "\n";
}, 10, ['ready_count' => 1]);
echo substr_count($t->log(), 'Input variables exceeded 5. To increase the limit change max_input_vars in php.ini.'), "\n";
?>
--EXPECT--
int(0)
[false,1203,false]
[0,0,0]
[5,5,5]
3
