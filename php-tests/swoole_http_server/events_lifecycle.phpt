--TEST--
swoole_http_server: start, managerStart, workerStart/workerStop per worker, managerStop and shutdown fire, and SIGTERM exits 0
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Every lifecycle callback appends a line to a file; after SIGTERM the parent checks all of them.
require __DIR__ . '/../include/bootstrap.php';
$evFile = rsw_tempfile('rsw_ev_');
$log = function (string $line) use ($evFile) { file_put_contents($evFile, $line . "\n", FILE_APPEND | LOCK_EX); };
$t = new ServerTest(function ($port, $ready) use ($log) {
    $http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE);
    $http->set(['worker_num' => 2]);
    $http->on('start', function ($s) use ($log) { $log('start'); });
    $http->on('managerStart', function ($s) use ($log) { $log('managerStart'); });
    $http->on('managerStop', function ($s) use ($log) { $log('managerStop'); });
    $http->on('workerStart', function ($s, $id) use ($log, $ready) { $log("workerStart $id"); $ready(); });
    $http->on('workerStop', function ($s, $id) use ($log) { $log("workerStop $id"); });
    $http->on('shutdown', function ($s) use ($log) { $log('shutdown'); });
    $http->on('request', function ($req, $resp) { $resp->end('ok'); });
    $http->start();
}, ['ready_count' => 2]);
$t->start();
[$status] = rsw_http_get($t->port, '/');
echo "request: $status\n";
echo $t->stop(SIGTERM), "\n";
$lines = file($evFile, FILE_IGNORE_NEW_LINES);
$sorted = $lines;
sort($sorted);
echo implode("\n", $sorted), "\n";
$lastStart = max(array_keys(array_filter($lines, fn($l) => str_starts_with($l, 'workerStart'))));
$firstStop = min(array_keys(array_filter($lines, fn($l) => str_starts_with($l, 'workerStop'))) ?: [PHP_INT_MAX]);
var_dump($lastStart < $firstStop);
var_dump(end($lines) === 'shutdown');
@unlink($evFile);
?>
--EXPECT--
request: 200
exit=0
managerStart
managerStop
shutdown
start
workerStart 0
workerStart 1
workerStop 0
workerStop 1
bool(true)
bool(true)
