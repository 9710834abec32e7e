--TEST--
swoole_server_process: the default worker_num of a PROCESS server is the number of online CPUs (swoole_cpu_num()), also when the process may run on fewer (CPU affinity), as in Swoole
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Restrict this process (and the server it forks) to CPU 0, as
// `taskset -c 0` does; Swoole still counts every online CPU.
Swoole\Process::setAffinity([0]);
$s = new Swoole\Server('127.0.0.1', 0, SWOOLE_PROCESS);
$s->set(['log_level' => SWOOLE_LOG_NONE]);
$s->on('workerStart', function ($s, $id) {
    if ($id == 0) {
        $n = $s->setting['worker_num'] ?? -1;
        echo $n === swoole_cpu_num() ? "worker_num = swoole_cpu_num()\n" : "worker_num $n, swoole_cpu_num() " . swoole_cpu_num() . "\n";
        $s->shutdown();
    }
});
$s->on('receive', function () {});
$s->start();
?>
--EXPECT--
worker_num = swoole_cpu_num()
