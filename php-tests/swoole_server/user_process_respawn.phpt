--TEST--
swoole_server: a user process that leaves cleanly on SIGTERM (Event::exit() in its handler) is started again at once
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$events = rsw_tempfile('rsw_ev_');
$t = new ServerTest(rsw_tcp_server_fn(['receive' => function () {}], ['worker_num' => 1], SWOOLE_PROCESS,
    SWOOLE_SOCK_TCP, function (Swoole\Server $s) use ($events) {
        $s->addProcess(new Swoole\Process(function () use ($events) {
            file_put_contents($events, getmypid() . ' ' . microtime(true) . "\n", FILE_APPEND | LOCK_EX);
            Swoole\Process::signal(SIGTERM, fn() => Swoole\Event::exit());
            Swoole\Timer::after(60000, function () {});
        }, false));
    }), ['ready_count' => 1]);
$t->start();
rsw_wait_until(fn() => count(file($events)) >= 1, 3);
$gaps = [];
for ($i = 0; $i < 3; $i++) {
    usleep(150000);
    $lines = file($events, FILE_IGNORE_NEW_LINES);
    [$pid] = explode(' ', end($lines));
    $at = microtime(true);
    posix_kill((int) $pid, SIGTERM);
    rsw_wait_until(fn() => count(file($events)) > count($lines), 3);
    $now = file($events, FILE_IGNORE_NEW_LINES);
    $gaps[] = (float) (explode(' ', (string) end($now))[1] ?? 99) - $at;
}
rsw_check('started again at once', max($gaps) < 0.09, $gaps);
echo $t->stop(), "\n";
?>
--EXPECT--
started again at once: OK
exit=0
