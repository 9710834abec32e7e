--TEST--
swoole_server: seed 000's reload example: after SIGUSR1 the old worker keeps its 5 s tick running (reload_async, max_wait_time 60)
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
    $kids = fn(int $pid) => array_values(array_filter(array_map('intval',
        preg_split('/\s+/', trim((string) @file_get_contents("/proc/$pid/task/$pid/children"))))));
    // SWOOLE_PROCESS: the master's one child is the manager; the workers are its children.
    $manager = $kids($srv->pid);
    rsw_check('one manager', count($manager) === 1, $manager);
    $children = fn() => $kids($manager[0]);
    $old = $children();
    rsw_check('one worker before the reload', count($old) === 1, $old);
    $mark = strlen($srv->log());
    posix_kill($srv->pid, SIGUSR1);
    // Only the old worker has a timer (the new one has received nothing): a tick after the
    // reload proves the draining worker keeps running its timers, as the seed describes.
    $ticked = rsw_wait_until(fn() => str_contains(substr($srv->log(), $mark), 'tick'), 8);
    rsw_check('the old worker ticks after the reload', $ticked, substr($srv->log(), $mark));
    rsw_check('the old worker is still alive (draining, max_wait_time 60 s)', $old !== [] && posix_kill($old[0], 0), $children());
    rsw_check('a new worker runs beside it', count(array_diff($children(), $old)) >= 1, $children());
} finally {
    // max_wait_time is 60 s and the tick never stops: the stop may end in SIGKILL, as with Swoole.
    $srv->stop(SIGTERM, 3.0);
}
?>
--EXPECT--
receive logged: OK
one manager: OK
one worker before the reload: OK
the old worker ticks after the reload: OK
the old worker is still alive (draining, max_wait_time 60 s): OK
a new worker runs beside it: OK
