--TEST--
swoole_http_client_coro: the trailer fields of a chunked response join $headers (as Swoole's client puts them there)
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
        fwrite($c, "HTTP/1.1 200 OK\r\nTrailer: Content-MD5, X-Done\r\nTransfer-Encoding: chunked\r\n"
            . "Connection: close\r\n\r\nb\r\nhello world\r\n0\r\nContent-MD5: " . md5('hello world')
            . "\r\nX-Done:  yes \r\n\r\n");
        fclose($c);
    }
}, function (int $port) {
    Co\run(function () use ($port) {
        $c = new Co\Http\Client('127.0.0.1', $port);
        $c->set(['timeout' => 3]);
        var_dump($c->get('/'), $c->body);
        var_dump($c->headers['content-md5'] === md5('hello world'), $c->headers['x-done']);
        $c = new Co\Http\Client('127.0.0.1', $port);
        $c->set(['timeout' => 3, 'lowercase_header' => false]);
        var_dump($c->get('/'), $c->headers['X-Done']);
    });
}, 10, ['ready_count' => 1, 'wait_port' => false]);
?>
--EXPECT--
bool(true)
string(11) "hello world"
bool(true)
string(4) "yes "
bool(true)
string(4) "yes "
