--TEST--
swoole_server_process: SWOOLE_PROCESS TCP server: master, manager and workers are separate processes, the master runs reactor_num threads, dispatch_mode 1 spreads connections over both workers, and a worker sends to and inspects a connection owned by the other worker
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
$t = rsw_run_server(rsw_tcp_server_fn([
    'workerStart' => function ($s, $id) {
        // One write per line: the two workers share the log file.
        echo "workerStart id=$id pid=" . getmypid() . " master={$s->master_pid} manager={$s->manager_pid}\n";
    },
    'connect' => function ($s, $fd, $rid) {
        echo "connect fd=$fd worker={$s->worker_id}\n";
    },
    'receive' => function (Swoole\Server $s, $fd, $rid, $data) {
        $cmd = trim($data);
        if (str_starts_with($cmd, 'to ')) {
            // Another worker's connection: send to it and read its info.
            $dst = (int) substr($cmd, 3);
            $info = $s->getClientInfo($dst);
            $ok = $s->send($dst, "from worker {$s->worker_id} via fd $fd\n");
            $s->send($fd, json_encode([$ok, $s->exists($dst), $info['remote_ip'] ?? null]) . "\n");
        } elseif ($cmd === 'who') {
            $s->send($fd, "fd=$fd worker={$s->worker_id} pid=" . getmypid() . "\n");
        }
    },
], ['worker_num' => 2, 'dispatch_mode' => 1, 'reactor_num' => 3], SWOOLE_PROCESS), function (int $port, ServerTest $t) {
    // Both workers ran workerStart; they become dispatch targets right after.
    usleep(200000);
    $conns = [];
    $who = [];
    for ($i = 0; $i < 6; $i++) {
        $c = new RswConn($port);
        $c->send("who\n");
        rsw_read_until($c, fn($b) => str_ends_with($b, "\n"));
        preg_match('/fd=(\d+) worker=(\d) pid=(\d+)/', $c->buf, $m);
        $c->buf = '';
        $conns[] = $c;
        $who[] = [(int) $m[1], (int) $m[2], (int) $m[3]];
    }
    $workers = array_column($who, 1);
    $alternates = true;
    for ($i = 1; $i < 6; $i++) {
        $alternates = $alternates && $workers[$i] !== $workers[$i - 1];
    }
    rsw_check('dispatch_mode 1 alternates workers', $alternates, $workers);
    // Connection on worker X asks to reach a connection on worker Y != X.
    $a = 0;
    $b = $workers[1] !== $workers[0] ? 1 : 2;
    $conns[$a]->send("to {$who[$b][0]}\n");
    rsw_read_until($conns[$a], fn($x) => str_ends_with($x, "\n"));
    rsw_check('send to the other worker\'s fd returns true', $conns[$a]->buf === "[true,true,\"127.0.0.1\"]\n", $conns[$a]->buf);
    rsw_read_until($conns[$b], fn($x) => str_ends_with($x, "\n"));
    rsw_check('the other connection got it', $conns[$b]->buf === "from worker {$workers[$a]} via fd {$who[$a][0]}\n", $conns[$b]->buf);
    // Process tree: one master (the script's process) with reactor threads,
    // one manager, two workers whose parent is the manager.
    preg_match_all('/workerStart id=(\d) pid=(\d+) master=(\d+) manager=(\d+)/', $t->log(), $ws, PREG_SET_ORDER);
    $master = (int) $ws[0][3];
    $manager = (int) $ws[0][4];
    rsw_check('master != manager', $master !== $manager && $master > 0 && $manager > 0, $ws);
    $ppid = fn($pid) => (int) preg_split('/\s+/', substr(file_get_contents("/proc/$pid/stat"), strrpos(file_get_contents("/proc/$pid/stat"), ')') + 2))[1];
    rsw_check('manager is the master\'s child', $ppid($manager) === $master);
    rsw_check('workers are the manager\'s children', $ppid((int) $ws[0][2]) === $manager && $ppid((int) $ws[1][2]) === $manager);
    // The PHP thread, reactor_num reactor threads and the thread that
    // watches the master's copies of the connections (engine::held).
    $threads = count(glob("/proc/$master/task/*"));
    rsw_check('master runs reactor_num threads', $threads === 5, $threads);
    rsw_check('manager and workers are single-threaded', count(glob("/proc/$manager/task/*")) === 1 && count(glob("/proc/{$ws[0][2]}/task/*")) === 1);
    foreach ($conns as $c) {
        $c->close();
    }
}, 10, ['ready_count' => 2]);
echo 'exit: ', $t->status(), "\n";
?>
--EXPECT--
dispatch_mode 1 alternates workers: OK
send to the other worker's fd returns true: OK
the other connection got it: OK
master != manager: OK
manager is the master's child: OK
workers are the manager's children: OK
master runs reactor_num threads: OK
manager and workers are single-threaded: OK
exit: exit=0
