--TEST--
swoole_server: send() of 4 MiB then close() delivers every byte before the FIN; close($fd, true) resets
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        if (trim($data) === 'big') {
            $s->send($fd, str_repeat('0123456789abcdef', 256 * 1024)); // 4 MiB
            $s->close($fd);
        } elseif (trim($data) === 'reset') {
            $s->send($fd, 'x');
            $s->close($fd, true);
        }
    },
]), function (int $port) {
    $sock = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 5);
    fwrite($sock, "big\n");
    stream_set_timeout($sock, 5);
    $got = '';
    while (!feof($sock)) {
        $chunk = fread($sock, 1 << 16);
        if ($chunk === false || ($chunk === '' && stream_get_meta_data($sock)['timed_out'])) {
            break;
        }
        $got .= $chunk;
    }
    rsw_check('all 4 MiB then EOF', strlen($got) === 4 << 20 && $got === str_repeat('0123456789abcdef', 256 * 1024) && feof($sock), strlen($got));
    fclose($sock);

    $s = socket_create(AF_INET, SOCK_STREAM, SOL_TCP);
    socket_set_option($s, SOL_SOCKET, SO_RCVTIMEO, ['sec' => 5, 'usec' => 0]);
    socket_connect($s, '127.0.0.1', $port);
    socket_write($s, "reset\n");
    $deadline = microtime(true) + 5;
    $err = 0;
    while (microtime(true) < $deadline) {
        $r = @socket_read($s, 100);
        if ($r === false) {
            $err = socket_last_error($s);
            break;
        }
        if ($r === '') {
            break;
        }
    }
    rsw_check('reset seen as ECONNRESET', $err === SOCKET_ECONNRESET, [$err, socket_strerror($err)]);
    socket_close($s);
});
?>
--EXPECT--
all 4 MiB then EOF: OK
reset seen as ECONNRESET: OK
