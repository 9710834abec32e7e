--TEST--
swoole_server: Response::create($server, $fd) on a raw TCP connection writes an HTTP response on it; the [$server, $request] form sets the request's fd
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $req = Swoole\Http\Request::create();
        $n = $req->parse($data);
        $resp = Swoole\Http\Response::create([$s, $req], $fd);
        $resp->header('X-Server', 'rsw');
        $resp->end(json_encode([$n === strlen($data), $req->getMethod(), $req->get, $req->fd === $fd, $resp->fd === $fd]));
    },
]), function (int $port) {
    $sock = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 5);
    stream_set_timeout($sock, 5);
    fwrite($sock, "GET /x?a=1 HTTP/1.1\r\nHost: h\r\n\r\n");
    $head = '';
    while (!str_contains($head, "\r\n\r\n") && ($c = fread($sock, 1)) !== '' && $c !== false) {
        $head .= $c;
    }
    $lines = explode("\r\n", trim($head));
    $len = 0;
    foreach ($lines as $l) {
        if (stripos($l, 'content-length:') === 0) $len = (int) trim(substr($l, 15));
    }
    $body = '';
    while (strlen($body) < $len && ($c = fread($sock, $len - strlen($body))) !== '' && $c !== false) {
        $body .= $c;
    }
    echo $lines[0], "\n";
    echo preg_grep('/^X-Server:/i', $lines) ? "x-server\n" : "no x-server\n";
    echo $body, "\n";
    fclose($sock);
});
?>
--EXPECT--
HTTP/1.1 200 OK
x-server
[true,"GET",{"a":"1"},true,true]
