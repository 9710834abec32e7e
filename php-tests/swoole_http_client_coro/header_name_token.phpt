--TEST--
swoole_http_client_coro: a response header name must be a token (RFC 9110), else "Http invalid protocol"; every tchar is accepted
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$good = "!#$%&'*+-.^_`|~Az09";
$bad = ['"', 'x(', 'x)', 'x,', '/', 'x;', 'x<', 'x=', 'x>', 'x@', 'x[', 'x\\', 'x]', 'x{', '}', 'a b'];
rsw_run_server(static function (int $port, callable $ready, string $host) use ($good, $bad): void {
    $srv = stream_socket_server("tcp://$host:$port", $errno, $errstr);
    $ready();
    while ($c = @stream_socket_accept($srv, 30)) {
        $req = '';
        while (!str_contains($req, "\r\n\r\n") && ($d = fread($c, 4096)) !== false && $d !== '') {
            $req .= $d;
        }
        preg_match('~GET /(\d+|good)~', $req, $m);
        $name = $m[1] === 'good' ? $good : $bad[(int)$m[1]];
        fwrite($c, "HTTP/1.1 200 OK\r\n$name: v\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        fclose($c);
    }
}, function (int $port) use ($good, $bad) {
    Co\run(function () use ($port, $good, $bad) {
        $c = new Co\Http\Client('127.0.0.1', $port);
        $c->set(['timeout' => 3, 'lowercase_header' => false]);
        var_dump($c->get('/good'), $c->headers[$good] ?? null, $c->body);
        $fails = 0;
        foreach ($bad as $i => $name) {
            $c = new Co\Http\Client('127.0.0.1', $port);
            $c->set(['timeout' => 3]);
            $r = $c->get("/$i");
            if ($r !== false || $c->errMsg !== 'Http invalid protocol' || $c->errCode !== 7102 || $c->statusCode !== -3) {
                echo "accepted $name: ", var_export([$r, $c->errCode, $c->errMsg, $c->statusCode], true), "\n";
                $fails++;
            }
        }
        echo "refused ", count($bad) - $fails, " of ", count($bad), "\n";
    });
}, 10, ['ready_count' => 1, 'wait_port' => false]);
?>
--EXPECT--
bool(true)
string(1) "v"
string(2) "ok"
refused 16 of 16
