--TEST--
swoole_server: an exception thrown by __serialize of onTask's return value is logged once, sends no result, and the next task and its finish callback still run; one thrown while task() packs its payload reaches task()'s caller without a warning
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

final class SerializesBadly
{
    public function __serialize(): array
    {
        throw new RuntimeException('result refused to serialize');
    }

    public function __unserialize(array $a): void
    {
    }
}

$t = rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $s->task('bad result', -1, function ($s, $id, $r) use ($fd) {
            $s->send($fd, 'finish for the bad result: ' . var_export($r, true) . "\n");
        });
        $s->task('second', -1, function ($s, $id, $r) use ($fd) {
            $s->send($fd, "second task: $r\n");
        });
        try {
            $s->task(new SerializesBadly());
            $s->send($fd, "task() returned\n");
        } catch (RuntimeException $e) {
            $s->send($fd, 'task() threw: ' . $e->getMessage() . "\n");
        }
        $s->task('third', -1, function ($s, $id, $r) use ($fd) {
            $s->send($fd, "third task: $r\n");
        });
    },
    'task' => function (Swoole\Server $s, $id, $src, $data) {
        return $data === 'bad result' ? new SerializesBadly() : "ran $data";
    },
], ['worker_num' => 1, 'task_worker_num' => 1]), function (int $port) {
    $c = new RswConn($port);
    $c->send("go\n");
    rsw_read_until($c, fn($x) => str_contains($x, 'third task'), 5);
    usleep(200000);
    $lines = explode("\n", trim($c->buf));
    sort($lines);
    echo implode("\n", $lines), "\n";
});
$log = $t->log();
rsw_check('the exception is logged once, in the task worker', substr_count($log, 'Uncaught RuntimeException: result refused to serialize') === 1, $log);
rsw_check('no warning and nothing blamed on a callback', !str_contains($log, 'Warning') && !str_contains($log, 'onTask'), $log);
?>
--EXPECT--
second task: ran second
task() threw: result refused to serialize
third task: ran third
the exception is logged once, in the task worker: OK
no warning and nothing blamed on a callback: OK
