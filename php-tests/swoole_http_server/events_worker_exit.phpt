--TEST--
swoole_http_server: workerExit fires while a worker with a pending timer shuts down (reload_async)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Documented pattern: a tick timer keeps the event loop busy at shutdown, so Swoole calls
// workerExit, where the application clears its timers; then workerStop and shutdown follow.
require __DIR__ . '/../include/bootstrap.php';
$evFile = rsw_tempfile('rsw_ev_');
$log = function (string $line) use ($evFile) { file_put_contents($evFile, $line . "\n", FILE_APPEND | LOCK_EX); };
$t = new ServerTest(function ($port, $ready) use ($log) {
    $http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE);
    $http->set(['worker_num' => 2, 'reload_async' => true, 'max_wait_time' => 5]);
    $http->on('workerStart', function ($s, $id) use ($ready) {
        Swoole\Timer::tick(50, function () {});
        $ready();
    });
    $http->on('workerExit', function ($s, $id) use ($log) {
        $log("workerExit $id");
        Swoole\Timer::clearAll();
    });
    $http->on('workerStop', function ($s, $id) use ($log) { $log("workerStop $id"); });
    $http->on('shutdown', function ($s) use ($log) { $log('shutdown'); });
    $http->on('request', function ($req, $resp) { $resp->end('ok'); });
    $http->start();
}, ['ready_count' => 2]);
$t->start();
echo $t->stop(SIGTERM), "\n";
$lines = array_unique(file($evFile, FILE_IGNORE_NEW_LINES));
sort($lines);
echo implode("\n", $lines), "\n";
@unlink($evFile);
?>
--EXPECT--
exit=0
shutdown
workerExit 0
workerExit 1
workerStop 0
workerStop 1
