--TEST--
swoole_http_server: a client that sends half a body and disconnects does not disturb the server
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Ten clients vanish mid-body (some with RST); the handler never sees them and later requests succeed.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    static $calls = 0;
    $calls++;
    $resp->end("calls=$calls");
}), function ($port, ServerTest $t) {
    for ($i = 0; $i < 10; $i++) {
        $c = new RswConn($port);
        $c->send("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n" . str_repeat('h', 500));
        if ($i % 2 && function_exists('socket_import_stream')) {
            $sock = socket_import_stream($c->sock);
            if ($sock !== false) {
                socket_set_option($sock, SOL_SOCKET, SO_LINGER, ['l_onoff' => 1, 'l_linger' => 0]);
            }
        }
        $c->close();
    }
    usleep(200000);
    echo rsw_http_get($port, '/')[2], "\n";
    var_dump($t->alive());
}, 10, []);
?>
--EXPECT--
calls=1
bool(true)
