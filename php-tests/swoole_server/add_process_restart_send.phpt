--TEST--
swoole_server: addProcess() in BASE and PROCESS mode: started with the workers, restarted after kill -9, sends to a connection through $server->send(), stopped at shutdown; getWorkerStatus()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

foreach ([SWOOLE_BASE, SWOOLE_PROCESS] as $mode) {
    $dir = rsw_tmpdir('rsw_addproc_');
    $pids = "$dir/pids";
    $fdFile = "$dir/fd";
    $setup = function (Swoole\Server $server) use ($pids, $fdFile) {
        $p = new Swoole\Process(function (Swoole\Process $p) use ($server, $pids, $fdFile) {
            file_put_contents($pids, "{$p->pid} {$p->id}\n", FILE_APPEND);
            $sent = [];
            while (true) {
                $fd = @file_get_contents($fdFile);
                if ($fd !== false && $fd !== '' && !isset($sent[$fd])) {
                    $sent[$fd] = true;
                    $server->send((int) $fd, "hello from user process {$p->pid}\n");
                }
                usleep(20000);
            }
        });
        file_put_contents(dirname($pids) . '/added', var_export($server->addProcess($p), true));
    };
    rsw_run_server(rsw_tcp_server_fn([
        'receive' => function (Swoole\Server $s, $fd, $rid, $data) use ($fdFile) {
            if (trim($data) === 'status') {
                $s->send($fd, json_encode([$s->getWorkerStatus(), $s->getWorkerStatus(0), $s->getWorkerStatus(99)]) . "\n");
                return;
            }
            file_put_contents($fdFile, (string) $fd);
        },
    ], ['worker_num' => 1], $mode, SWOOLE_SOCK_TCP, $setup), function (int $port, ServerTest $t) use ($pids) {
        // The port may answer before the setup callback has written its file.
        rsw_wait_until(fn() => is_file(dirname($pids) . '/added'), 5);
        echo "addProcess: ", file_get_contents(dirname($pids) . '/added'), "\n";
        rsw_check('user process started', rsw_wait_until(fn() => is_file($pids) && count(file($pids)) >= 1, 5));
        [$pid1, $id1] = explode(' ', trim(file($pids)[0]));
        rsw_check('id is after the workers', $id1 === '1', $id1);
        $c = new RswConn($port);
        $c->send("status\n");
        rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 3);
        echo "status: ", $c->buf;
        $c->buf = '';
        $c->send("register\n");
        rsw_read_until($c, fn($b) => str_ends_with($b, "\n"), 3);
        rsw_check('message from the user process', $c->buf === "hello from user process $pid1\n", $c->buf);
        posix_kill((int) $pid1, SIGKILL);
        rsw_check('restarted', rsw_wait_until(fn() => count(file($pids)) >= 2, 5));
        [$pid2] = explode(' ', trim(file($pids)[1]));
        rsw_check('new pid', $pid2 !== $pid1 && rsw_pid_alive((int) $pid2));
        $c2 = new RswConn($port);
        $c2->send("again\n");
        rsw_read_until($c2, fn($b) => str_ends_with($b, "\n"), 3);
        rsw_check('the new process sends too', $c2->buf === "hello from user process $pid2\n", $c2->buf);
        $GLOBALS['last_pid'] = (int) $pid2;
    });
    rsw_check('stopped with the server', rsw_wait_until(fn() => !rsw_pid_alive($GLOBALS['last_pid']), 5));
    echo "mode $mode ok\n";
}
?>
--EXPECT--
addProcess: 0
user process started: OK
id is after the workers: OK
status: [1,1,false]
message from the user process: OK
restarted: OK
new pid: OK
the new process sends too: OK
stopped with the server: OK
mode 1 ok
addProcess: 0
user process started: OK
id is after the workers: OK
status: [1,1,false]
message from the user process: OK
restarted: OK
new pid: OK
the new process sends too: OK
stopped with the server: OK
mode 2 ok
