--TEST--
swoole_websocket_server: a client's close frame in onMessage (open_websocket_close_frame) reads as Swoole 6.2.2 reads it (no code: 1000), and the answer is checked (1-byte payload or bad code: 1002, bad UTF-8 reason: 1007)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/websocket.php';

$log = tempnam(sys_get_temp_dir(), 'rsw_ws_cf_');
rsw_run_server(static function (int $port, callable $ready, string $host) use ($log): void {
    $s = new Swoole\WebSocket\Server($host, $port, SWOOLE_BASE);
    $s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING, 'open_websocket_close_frame' => true]);
    $s->on('workerStart', static fn () => $ready());
    $s->on('message', function ($s, $f) use ($log) {
        $line = implode(' ', [get_class($f), $f->opcode, $f->flags, var_export($f->data, true),
            $f->code, bin2hex($f->reason), var_export($f->finish, true)]);
        file_put_contents($log, "$line\n", FILE_APPEND);
    });
    $s->start();
}, function (int $port) use ($log) {
    $cases = ['empty' => '', 'one byte' => "\x03", 'code+reason' => "\x03\xe8ok",
        'code 999' => "\x03\xe7", 'bad utf-8' => "\x0f\xa0\xff", 'code 4000' => "\x0f\xa0"];
    $n = 0;
    foreach ($cases as $name => $payload) {
        [$c] = rsw_ws_connect($port, '/');
        fwrite($c, rsw_ws_frame(0x88, $payload));
        [$b0, $data] = rsw_ws_read($c) ?? [0, ''];
        fclose($c);
        $lines = rsw_wait_lines($log, ++$n);
        printf("%-11s -> %s | answer op %d code %s reason '%s'\n", $name, end($lines), $b0 & 0x0f,
            strlen($data) >= 2 ? unpack('n', $data)[1] : '-', substr($data, 2));
    }
}, 10, ['ready_count' => 1, 'wait_port' => false]);
@unlink($log);
?>
--EXPECT--
empty       -> Swoole\WebSocket\CloseFrame 8 33 '' 1000  true | answer op 8 code 1000 reason ''
one byte    -> Swoole\WebSocket\CloseFrame 8 33 '' 1000  true | answer op 8 code 1002 reason ''
code+reason -> Swoole\WebSocket\CloseFrame 8 33 '' 1000 6f6b true | answer op 8 code 1000 reason 'ok'
code 999    -> Swoole\WebSocket\CloseFrame 8 33 '' 999  true | answer op 8 code 1002 reason ''
bad utf-8   -> Swoole\WebSocket\CloseFrame 8 33 '' 4000 ff true | answer op 8 code 1007 reason ''
code 4000   -> Swoole\WebSocket\CloseFrame 8 33 '' 4000  true | answer op 8 code 4000 reason ''
