--TEST--
swoole_server: seed 000's reload example (SWOOLE_PROCESS, onReceive starting Swoole\Timer::tick) runs unchanged and survives a reload
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$seed = <<<'SEED'
$serv = new Swoole\Server("0.0.0.0", 9501, SWOOLE_PROCESS);
$serv->set(array(
    'worker_num' => 1,
    'max_wait_time' => 60,
    'reload_async' => true,
));
$serv->on('receive', function (Swoole\Server $serv, $fd, $reactor_id, $data) {

    echo "[#" . $serv->worker_id . "]\tClient[$fd] receive data: $data\n";

    Swoole\Timer::tick(5000, function () {
        echo 'tick';
    });
});

$serv->start();
SEED;
$port = rsw_free_port();
$dir = rsw_tmpdir();
// The seed as printed, but for its port and 127.0.0.1 (tests never listen beyond loopback).
$script = str_replace(['9501', '"0.0.0.0"'], [(string) $port, '"127.0.0.1"'], $seed);
file_put_contents("$dir/seed000_reload.php", "<?php\n" . $script . "\n");
$srv = (new ScriptServer("$dir/seed000_reload.php", $port))->start();
try {
    $c = new RswConn($port);
    $c->send('hello');
    rsw_check('receive logged', rsw_wait_until(fn() => str_contains($srv->log(), "Client[") && str_contains($srv->log(), 'receive data: hello'), 5), $srv->log());
    $c->close();
    posix_kill($srv->pid, SIGUSR1);
    // The old worker has a tick timer: with reload_async it runs until it clears or max_wait_time; the new one serves.
    $ok = rsw_wait_until(function () use ($port, $srv) {
        $d = new RswConn($port);
        $d->send('after');
        usleep(200000);
        return substr_count($srv->log(), 'receive data: after') >= 1;
    }, 10);
    rsw_check('served after reload', $ok, $srv->log());
} finally {
    // max_wait_time is 60 s and the tick never stops: the stop may end in SIGKILL, as with Swoole.
    $srv->stop(SIGTERM, 3.0);
}
?>
--EXPECT--
receive logged: OK
served after reload: OK
