--TEST--
swoole_http_client_coro: http_proxy_host/_port send the request to the proxy in absolute form (the Host header set, else host:port), with Proxy-Authorization when a password is set
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
        $lines = array_filter(explode("\r\n", $req), fn ($l) => preg_match('~^(GET|Host|Proxy-Authorization)\b~', $l));
        $body = implode("\n", $lines);
        fwrite($c, "HTTP/1.1 200 OK\r\nContent-Length: " . strlen($body) . "\r\nConnection: close\r\n\r\n$body");
        fclose($c);
    }
}, function (int $port) {
    Co\run(function () use ($port) {
        // Nothing listens on the target: only the proxy is reached.
        $c = new Co\Http\Client('127.0.0.1', 1234);
        $c->set(['timeout' => 3, 'http_proxy_host' => '127.0.0.1', 'http_proxy_port' => $port]);
        var_dump($c->get('/a?b=1'));
        echo $c->body, "\n";
        $c = new Co\Http\Client('127.0.0.1', 1234);
        $c->set(['timeout' => 3, 'http_proxy_host' => '127.0.0.1', 'http_proxy_port' => $port,
            'http_proxy_user' => 'u', 'http_proxy_password' => 'p']);
        $c->setHeaders(['Host' => 'example.org:8080']);
        var_dump($c->get('/'));
        echo $c->body, "\n";
    });
}, 10, ['ready_count' => 1, 'wait_port' => false]);
?>
--EXPECT--
bool(true)
GET http://127.0.0.1:1234/a?b=1 HTTP/1.1
Host: 127.0.0.1:1234
bool(true)
GET http://example.org:8080/ HTTP/1.1
Host: example.org:8080
Proxy-Authorization: Basic dTpw
