--TEST--
swoole_server: getWorkerStatus() is IDLE in workerStart and timers, BUSY in onReceive, EXIT in workerExit; idle_worker_num leaves out the busy worker; workerExit (only with a timer left) comes before workerStop
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
        $log("start $id " . $s->getWorkerStatus());
        if ($id === 0) {
            $GLOBALS['tick'] = Swoole\Timer::tick(50, function () use ($s, $log) {
                static $once = false;
                if (!$once) {
                    $once = true;
                    $log('tick ' . $s->getWorkerStatus());
                }
            });
        }
    },
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $st = $s->stats();
        $s->send($fd, json_encode([$s->getWorkerStatus(), $st['idle_worker_num'], $st['worker_num']]) . "\n");
    },
    'workerExit' => function (Swoole\Server $s, int $id) use ($log) {
        $log("exit $id " . $s->getWorkerStatus());
        Swoole\Timer::clearAll();
    },
    'workerStop' => function (Swoole\Server $s, int $id) use ($log) {
        $log("stop $id");
    },
], ['worker_num' => 2, 'enable_coroutine' => false]), ['ready_count' => 2]);
$t->start();
rsw_wait_until(fn() => str_contains((string) file_get_contents($events), 'tick'), 3);
$c = new RswConn($t->port);
$c->send("status\n");
rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 3);
echo trim($c->buf), "\n";
$c->close();
usleep(100000);
echo $t->stop(), "\n";
$lines = file($events, FILE_IGNORE_NEW_LINES);
$w0 = array_values(array_filter($lines, fn($l) => preg_match('/^(start|tick|exit|stop) 0\b|^tick/', $l)));
$w1 = array_values(array_filter($lines, fn($l) => preg_match('/^(start|exit|stop) 1\b/', $l)));
echo implode("\n", $w0), "\n--\n", implode("\n", $w1), "\n";
?>
--EXPECT--
[1,1,2]
exit=0
start 0 2
tick 2
exit 0 3
stop 0
--
start 1 2
stop 1
