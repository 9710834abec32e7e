--TEST--
swoole_http_client_coro: a unix:/path host (unix:/, unix://, unix:/// forms) connects to the Unix stream socket; Host is the path
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$path = sys_get_temp_dir() . '/rsw_unix_' . getmypid() . '.sock';
@unlink($path);
rsw_run_server(static function (int $port, callable $ready, string $host) use ($path): void {
    $srv = stream_socket_server("unix://$path", $errno, $errstr);
    $ready();
    while ($c = @stream_socket_accept($srv, 30)) {
        while (true) {
            $req = '';
            while (!str_contains($req, "\r\n\r\n") && ($d = fread($c, 4096)) !== false && $d !== '') {
                $req .= $d;
            }
            if ($req === '') {
                break;
            }
            preg_match('/^Host: (.*)\r$/m', $req, $m);
            $body = "host=" . ($m[1] ?? '?');
            fwrite($c, "HTTP/1.1 200 OK\r\nContent-Length: " . strlen($body) . "\r\n\r\n$body");
        }
        fclose($c);
    }
}, function (int $port) use ($path) {
    Co\run(function () use ($path) {
        foreach (['unix:', 'unix://', 'unix://'. '/'] as $i => $prefix) {
            $c = new Co\Http\Client($prefix . $path);
            $ok = $c->get('/') && $c->get('/again');
            echo $i, ': ', var_export($ok, true), ' ', $c->statusCode, ' ', $c->body === "host=$path" ? 'host ok' : $c->body, "\n";
            $c->close();
        }
        $c = new Co\Http\Client('unix:' . $path . '.missing');
        var_dump($c->get('/'), $c->statusCode, $c->errCode);
    });
}, 10, ['ready_count' => 1, 'wait_port' => false]);
@unlink($path);
?>
--EXPECT--
0: true 200 host ok
1: true 200 host ok
2: true 200 host ok
bool(false)
int(-1)
int(2)
