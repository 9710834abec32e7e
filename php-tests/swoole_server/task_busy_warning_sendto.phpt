--TEST--
swoole_server: a task dispatched while every task worker is busy logs Swoole's "No idle task worker is available" (once a second at most); a task worker can sendto() from the server's UDP port
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$log = rsw_tempfile('rsw_log_');
$counter = new Swoole\Atomic(0);
$port = rsw_free_port();
$t = new ServerTest(function (int $port, callable $ready) use ($log, $counter) {
    $s = new Swoole\Server('127.0.0.1', $port, SWOOLE_BASE, SWOOLE_SOCK_UDP);
    $s->set(['worker_num' => 1, 'task_worker_num' => 2, 'log_file' => $log, 'log_level' => SWOOLE_LOG_NOTICE]);
    $s->on('workerStart', function ($s, $id) use ($ready) { $ready(); });
    $s->on('packet', function ($s, $data, $client) {
        for ($i = 0; $i < 4; $i++) {
            $s->task(['client' => $client]);
            usleep(20000);
        }
    });
    $s->on('task', function ($s, $id, $src, $data) use ($counter) {
        static $slept = false;
        if (!$slept) {
            $slept = true;
            usleep(500000);
        }
        if ($counter->add(1) == 4) {
            $s->sendto($data['client']['address'], $data['client']['port'], "DONE from task worker\n");
        }
    });
    $s->start();
}, ['port' => $port, 'ready_count' => 3, 'wait_port' => false]);
$t->start();
$c = new Swoole\Client(SWOOLE_SOCK_UDP, SWOOLE_SOCK_SYNC);
$c->connect('127.0.0.1', $port, 3);
$c->send('ping');
echo $c->recv();
$t->stop();
echo substr_count(file_get_contents($log), "WARNING\tServer::timer_callback() (ERRNO 9007): No idle task worker is available"), "\n";
?>
--EXPECT--
DONE from task worker
1
