--TEST--
swoole_server_process: Process::signal() set in onStart (the master) keeps the signal: SIGINT runs the script's callback, which shuts the server down
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$events = rsw_tempfile('rsw_ev_');
$t = new ServerTest(rsw_tcp_server_fn([
    'start' => function (Swoole\Server $s) use ($events) {
        Swoole\Process::signal(SIGINT, function (int $sig) use ($s, $events) {
            file_put_contents($events, "master got $sig\n", FILE_APPEND);
            $s->shutdown();
        });
    },
    'receive' => function () {},
], ['worker_num' => 1], SWOOLE_PROCESS), ['ready_count' => 1]);
$t->start();
usleep(100000);
posix_kill($t->pid, SIGINT);
rsw_check('the server exits', $t->waitExit(5));
echo file_get_contents($events);
echo $t->stop(), "\n";
?>
--EXPECT--
the server exits: OK
master got 2
exit=0
