--TEST--
swoole_http_client_coro: write_func gets the body piece by piece (a chunk at a time) with the client, $body stays empty; a close() in it fails the request with statusCode -3
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $srv = stream_socket_server("tcp://$host:$port", $errno, $errstr);
    $ready();
    while ($c = @stream_socket_accept($srv, 30)) {
        $req = '';
        while (!str_contains($req, "\r\n\r\n") && ($d = fread($c, 4096)) !== false && $d !== '') {
            $req .= $d;
        }
        if (str_contains($req, 'GET /length')) {
            fwrite($c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
        } else {
            fwrite($c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
            foreach (['one', 'two', 'three', 'four'] as $piece) {
                fwrite($c, dechex(strlen($piece)) . "\r\n$piece\r\n");
                usleep(20000);
            }
            fwrite($c, "0\r\n\r\n");
        }
        fclose($c);
    }
}, function (int $port) {
    Co\run(function () use ($port) {
        $got = [];
        $c = new Co\Http\Client('127.0.0.1', $port);
        $c->set(['timeout' => 3, 'write_func' => function ($cli, $data) use (&$got, &$c) {
            $got[] = [$cli === $c, $data];
        }]);
        var_dump($c->get('/'), $c->statusCode, $c->body, json_encode($got));
        $got = [];
        var_dump($c->get('/length'), json_encode($got));

        $c = new Co\Http\Client('127.0.0.1', $port);
        $n = 0;
        $c->set(['timeout' => 3, 'write_func' => function ($cli, $data) use (&$n) {
            if (++$n == 2) {
                $cli->close();
            }
        }]);
        var_dump($c->get('/'), $n, $c->statusCode);
    });
}, 10, ['ready_count' => 1, 'wait_port' => false]);
?>
--EXPECT--
bool(true)
int(200)
string(0) ""
string(56) "[[true,"one"],[true,"two"],[true,"three"],[true,"four"]]"
bool(true)
string(16) "[[true,"hello"]]"
bool(false)
int(2)
int(-3)
