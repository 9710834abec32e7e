--TEST--
swoole_server_reload: log_file is reopened on SIGRTMIN to the master (logrotate): after the file is moved away, the master's and the workers' next lines go to a new file at the same path, in both modes
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach ([SWOOLE_BASE => 'base', SWOOLE_PROCESS => 'process'] as $mode => $name) {
    $dir = rsw_tmpdir();
    $logFile = "$dir/server.log";
    $t = new ServerTest(function ($port, $ready) use ($mode, $logFile) {
        $http = new Swoole\Http\Server('127.0.0.1', $port, $mode);
        $http->set(['worker_num' => 2, 'log_file' => $logFile, 'log_level' => SWOOLE_LOG_INFO]);
        $http->on('workerStart', function ($s, $id) use ($ready) { $ready(); });
        $http->on('request', function ($req, $resp) {
            // An uncaught exception is written to log_file by the worker that ran it.
            throw new RuntimeException('marker-' . $req->get['m']);
        });
        $http->start();
    }, ['ready_count' => 2]);
    $t->start();
    // Several connections, so that both workers log.
    for ($i = 0; $i < 6; $i++) {
        @file_get_contents("http://127.0.0.1:{$t->port}/?m=before$i");
    }
    rename($logFile, "$logFile.1");
    posix_kill($t->pid, SIGRTMIN);
    usleep(300000);
    for ($i = 0; $i < 6; $i++) {
        @file_get_contents("http://127.0.0.1:{$t->port}/?m=after$i");
    }
    posix_kill($t->pid, SIGUSR1); // the reload lines come from the master (or the manager)
    rsw_wait_until(fn() => str_contains((string) @file_get_contents($logFile), 'Server is reloading all workers now'), 5);
    usleep(200000);
    $old = (string) @file_get_contents("$logFile.1");
    $new = (string) @file_get_contents($logFile);
    rsw_check("$name: the rotated file has the lines from before", substr_count($old, 'marker-before') === 6 && !str_contains($old, 'marker-after'), $old);
    rsw_check("$name: the new file has the workers' lines from after", substr_count($new, 'marker-after') === 6 && !str_contains($new, 'marker-before'), $new);
    rsw_check("$name: and the supervisor's", str_contains($new, 'Server is reloading all workers now'), $new);
    rsw_check("$name: no worker died of the signal", !str_contains($old . $new, 'abnormal exit'), $old . $new);
    echo $t->stop(), "\n";
}
?>
--EXPECT--
base: the rotated file has the lines from before: OK
base: the new file has the workers' lines from after: OK
base: and the supervisor's: OK
base: no worker died of the signal: OK
exit=0
process: the rotated file has the lines from before: OK
process: the new file has the workers' lines from after: OK
process: and the supervisor's: OK
process: no worker died of the signal: OK
exit=0
