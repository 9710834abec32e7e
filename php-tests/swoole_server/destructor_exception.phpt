--TEST--
swoole_server: an exception thrown by __destruct when a callback's arguments or onTask's result are released is logged, and the next callbacks still run
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

final class ThrowsOnDestruct
{
    public function __destruct()
    {
        throw new RuntimeException('destructor threw in ' . (Swoole\Coroutine::getCid() >= 0 ? 'a coroutine' : 'no coroutine'));
    }
}

$t = rsw_run_server(rsw_tcp_server_fn([
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $s->task('a', -1, function ($s, $id, $r) use ($fd) {
            $s->send($fd, 'finish a: ' . get_debug_type($r) . "\n");
        });
        $s->task('b', -1, function ($s, $id, $r) use ($fd) {
            $s->send($fd, "finish b: $r\n");
        });
        $s->task('c', -1, function ($s, $id, $r) use ($fd) {
            $s->send($fd, "finish c: $r\n");
        });
    },
    'task' => function (Swoole\Server $s, $id, $src, $data) {
        return $data === 'a' ? new ThrowsOnDestruct() : "ran $data";
    },
], ['worker_num' => 1, 'task_worker_num' => 1]), function (int $port) {
    $c = new RswConn($port);
    $c->send("go\n");
    rsw_read_until($c, fn($x) => str_contains($x, 'finish c'), 5);
    usleep(200000);
    echo $c->buf;
});
$log = $t->log();
rsw_check('the destructor exceptions are logged (task worker and worker)', substr_count($log, 'Uncaught RuntimeException: destructor threw') === 2, $log);
rsw_check('no coroutine failed to start', !str_contains($log, 'cannot start a coroutine'), $log);
?>
--EXPECT--
finish a: ThrowsOnDestruct
finish b: ran b
finish c: ran c
the destructor exceptions are logged (task worker and worker): OK
no coroutine failed to start: OK
