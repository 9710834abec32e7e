--TEST--
swoole_server: bind() sets a uid once (getClientInfo shows it), sendfile() sends a file slice, sendwait() sends in BASE mode
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$file = tempnam(sys_get_temp_dir(), 'rswsf');
file_put_contents($file, '0123456789abcdefghij');
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) use ($file) {
        if (trim($data) === 'wait') {
            var_dump($s->sendwait($fd, "waited\n"));
            return;
        }
        $r = [
            'before' => $s->getClientInfo($fd)['uid'] ?? null,
            'bind' => $s->bind($fd, 42),
            'again' => $s->bind($fd, 43),
            'uid' => $s->getClientInfo($fd)['uid'] ?? null,
            'gone' => $s->bind(999999, 1),
            'callback' => $s->getCallback('receive') instanceof Closure,
            'exist' => $s->exist($fd),
        ];
        $s->send($fd, json_encode($r) . "\n");
        $r2 = [$s->sendfile($fd, $file, 5, 10), $s->sendfile($fd, $file, 18), @$s->sendfile($fd, $file, 30)];
        $s->send($fd, "|" . json_encode($r2) . "\n");
    },
]), function (int $port) {
    $sock = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 5);
    stream_set_timeout($sock, 5);
    fwrite($sock, "hi\n");
    echo fgets($sock), fgets($sock);
    fwrite($sock, "wait\n");
    echo fgets($sock);
    fclose($sock);
});
@unlink($file);
?>
--EXPECT--
{"before":null,"bind":true,"again":false,"uid":42,"gone":false,"callback":true,"exist":true}
56789abcdeij|[true,true,false]
waited
