--TEST--
swoole_server_coro: Http\Response::create() on a Coroutine\Server connection's socket (create($socket) and create([$socket, $request])) writes the HTTP response on that socket; the connection stays open for a second request
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

use Swoole\Coroutine\Server;
use Swoole\Coroutine\Server\Connection;
use Swoole\Http\Request;
use Swoole\Http\Response;

Co\run(function () {
    $server = new Server('127.0.0.1', 0, false);
    go(function () use ($server) {
        $server->handle(function (Connection $conn) {
            foreach (['plain', 'pair'] as $how) {
                $req = Request::create();
                while (!$req->isCompleted()) {
                    $data = $conn->recv(3);
                    if ($data === '' || $data === false) {
                        return;
                    }
                    $req->parse($data);
                }
                $sock = $conn->exportSocket();
                $resp = $how === 'plain' ? Response::create($sock) : Response::create([$sock, $req]);
                $resp->header('X-How', $how);
                $resp->end("{$req->server['request_uri']} {$req->get['q']} " . $req->rawContent());
            }
        });
        $server->start();
    });
    $c = stream_socket_client("tcp://127.0.0.1:{$server->port}", $errno, $errstr, 3);
    stream_set_timeout($c, 3);
    $read = function () use ($c): string {
        $head = '';
        while (!str_contains($head, "\r\n\r\n") && !feof($c)) {
            $head .= fread($c, 1);
        }
        preg_match('/content-length: (\d+)/i', $head, $m);
        $body = (int) ($m[1] ?? 0) > 0 ? fread($c, (int) $m[1]) : '';
        preg_match('/x-how: (\w+)/i', $head, $h);
        return strtok($head, "\r") . ' | ' . ($h[1] ?? '-') . ' | ' . $body;
    };
    fwrite($c, "POST /a?q=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
    echo $read(), "\n";
    fwrite($c, "GET /b?q=2 HTTP/1.1\r\nHost: x\r\n\r\n");
    echo $read(), "\n";
    fclose($c);
    $server->shutdown();
});
?>
--EXPECT--
HTTP/1.1 200 OK | plain | /a 1 hello
HTTP/1.1 200 OK | pair | /b 2 
