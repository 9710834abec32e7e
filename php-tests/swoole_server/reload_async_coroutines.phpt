--TEST--
swoole_server: with reload_async, a reloaded worker keeps running until its coroutines finish (workerExit meanwhile, then workerStop)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$events = rsw_tempfile('rsw_ev_');
$log = static function (string $s) use ($events): void {
    file_put_contents($events, $s . "\n", FILE_APPEND | LOCK_EX);
};
$t = new ServerTest(rsw_tcp_server_fn([
    'workerStart' => function (Swoole\Server $s, int $id) use ($log) {
        static $first = true;
        $log('start ' . getmypid());
        if (!file_exists(sys_get_temp_dir() . '/rsw_ra_' . posix_getppid())) {
            touch(sys_get_temp_dir() . '/rsw_ra_' . posix_getppid());
            go(function () use ($log) {
                for ($n = 1; $n <= 3; $n++) {
                    Co::sleep(0.2);
                    $log("step $n " . getmypid());
                }
            });
        }
    },
    'workerExit' => function (Swoole\Server $s, int $id) use ($log) {
        static $once = false;
        if (!$once) {
            $once = true;
            $log('exit ' . getmypid());
        }
    },
    'workerStop' => function (Swoole\Server $s, int $id) use ($log) {
        $log('stop ' . getmypid());
    },
    'receive' => function () {},
], ['worker_num' => 1, 'reload_async' => true, 'max_wait_time' => 5]), ['ready_count' => 1]);
$t->start();
usleep(50000);
posix_kill($t->pid, SIGUSR1);
rsw_wait_until(fn() => str_contains((string) file_get_contents($events), 'stop'), 5);
usleep(100000);
@unlink(sys_get_temp_dir() . '/rsw_ra_' . $t->pid);
echo $t->stop(), "\n";
$lines = file($events, FILE_IGNORE_NEW_LINES);
$old = (int) explode(' ', $lines[0])[1];
$mine = array_values(array_filter($lines, fn($l) => str_ends_with($l, " $old")));
echo implode("\n", array_map(fn($l) => substr($l, 0, strrpos($l, ' ')), $mine)), "\n";
?>
--EXPECT--
exit=0
start
exit
step 1
step 2
step 3
stop
