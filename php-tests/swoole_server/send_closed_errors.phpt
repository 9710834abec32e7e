--TEST--
swoole_server: send() to a closed or unknown connection returns false with SWOOLE_ERROR_SESSION_NOT_EXIST and no notice, and so does close(); empty data, fd 0 and a null fd warn with Swoole's texts
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$script = <<<'PHP'
<?php
$port = (int) $argv[1];
$s = new Swoole\Server('127.0.0.1', $port, $argv[2] === 'process' ? SWOOLE_PROCESS : SWOOLE_BASE);
$s->set(['worker_num' => 1, 'log_file' => '/dev/null']);
$s->on('workerStart', function ($s) use ($port) {
    go(function () use ($s, $port) {
        $c = new Swoole\Coroutine\Client(SWOOLE_SOCK_TCP);
        $c->connect('127.0.0.1', $port);
        $c->send("hi");
        Co::sleep(0.1);
        $c->close();
        Co::sleep(0.2);
        swoole_clear_error();
        echo json_encode([$s->send(1, "late"), swoole_last_error()]), "\n";
        swoole_clear_error();
        echo json_encode([$s->send(99999, "x"), swoole_last_error()]), "\n";
        swoole_clear_error();
        echo json_encode([$s->close(99999), $s->getLastError()]), "\n";
        echo json_encode([$s->send(1, ""), swoole_last_error()]), "\n";
        echo json_encode($s->send(0, "x")), "\n";
        echo json_encode($s->send(null, "x")), "\n";
        $s->shutdown();
    });
});
$s->on('receive', function () {});
$s->start();
PHP;
$file = rsw_tempfile('rsw_send_closed_');
file_put_contents($file, $script);
foreach (['base', 'process'] as $mode) {
    echo "== $mode\n";
    $cmd = array_merge(rsw_php_cmd(), ['-d', 'display_errors=stdout', $file, (string) rsw_free_port(), $mode]);
    $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    $err = stream_get_contents($pipes[2]);
    proc_close($p);
    echo $out, $err;
}
@unlink($file);
?>
--EXPECTF--
== base
[false,1005]
[false,1005]
[false,1005]

Warning: Swoole\Server::send(): the data sent must not be empty in %s on line %d
[false,550]

Warning: Swoole\Server::send(): invalid fd[0] in %s on line %d
false

Warning: Swoole\Server::send(): fd can not be null in %s on line %d
false
== process
[false,1005]
[false,1005]
[false,1005]

Warning: Swoole\Server::send(): the data sent must not be empty in %s on line %d
[false,550]

Warning: Swoole\Server::send(): invalid fd[0] in %s on line %d
false

Warning: Swoole\Server::send(): fd can not be null in %s on line %d
false
