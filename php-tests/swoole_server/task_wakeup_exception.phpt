--TEST--
swoole_server: an exception thrown by a task payload's __wakeup is logged in the task worker, that task is not run, and the next task still runs; a result that cannot be restored reaches the finish callback as false
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

final class WakesBadly
{
    public string $v = 'x';

    public function __wakeup(): void
    {
        throw new RuntimeException('payload refused to wake up');
    }
}

$t = rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $s->task(new WakesBadly(), -1, function ($s, $id, $r) use ($fd) {
            $s->send($fd, "finish for the bad task: $r\n");
        });
        $s->task(['n' => 2], -1, function ($s, $id, $r) use ($fd) {
            $s->send($fd, "second task: $r\n");
        });
        // A result that cannot be restored in this worker: its finish callback gets false.
        $s->task('give me a bad result', -1, function ($s, $id, $r) use ($fd) {
            $s->send($fd, 'bad result arrives as: ' . var_export($r, true) . "\n");
        });
        $s->task(['n' => 4], -1, function ($s, $id, $r) use ($fd) {
            $s->send($fd, "fourth task: $r\n");
        });
    },
    'task' => function (Swoole\Server $s, $id, $src, $data) {
        if ($data === 'give me a bad result') {
            return new WakesBadly();
        }
        return is_array($data) ? 'ran with n=' . $data['n'] : 'ran with ' . get_debug_type($data);
    },
], ['worker_num' => 1, 'task_worker_num' => 1]), function (int $port) {
    $c = new RswConn($port);
    $c->send("go\n");
    rsw_read_until($c, fn($x) => str_contains($x, 'fourth task'), 5);
    usleep(200000);
    echo $c->buf;
});
$log = $t->log();
rsw_check('the exception is logged', str_contains($log, 'Uncaught RuntimeException: payload refused to wake up'), $log);
rsw_check('each bad payload logged once, nothing blamed on a callback', substr_count($log, 'Uncaught') === 2 && !str_contains($log, 'onTask') && !str_contains($log, 'Warning'), $log);
?>
--EXPECT--
second task: ran with n=2
bad result arrives as: false
fourth task: ran with n=4
the exception is logged: OK
each bad payload logged once, nothing blamed on a callback: OK
