--TEST--
swoole_server: start() inside a coroutine is refused with Swoole's warning; shutdown() called in onStart still ends with onShutdown, in BASE and PROCESS mode
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
Co\run(function () {
    $s = new Swoole\Server('127.0.0.1', 0, SWOOLE_BASE);
    $s->on('receive', function () {});
    var_dump($s->start());
});
foreach ([SWOOLE_BASE, SWOOLE_PROCESS] as $mode) {
    $script = rsw_tempfile('rsw_sd_') . '.php';
    file_put_contents($script, '<?php
$s = new Swoole\Server("127.0.0.1", 0, ' . $mode . ');
$s->set(["worker_num" => 1, "log_level" => SWOOLE_LOG_ERROR, "max_wait_time" => 1]);
$s->on("start", function ($s) { echo "start\n"; $s->shutdown(); });
$s->on("shutdown", function () { echo "shutdown\n"; });
$s->on("receive", function () {});
var_dump($s->start());
');
    $cmd = 'timeout 10 ' . implode(' ', array_map('escapeshellarg', rsw_php_cmd())) . ' ' . escapeshellarg($script) . ' 2>&1';
    exec($cmd, $out, $rc);
    echo implode("\n", $out), "\nrc=$rc\n";
    $out = [];
    @unlink($script);
}
?>
--EXPECTF--
Warning: Swoole\Server::start(): The event-loop has already been created, unable to start Swoole\Server in %s on line %d
bool(false)
start
shutdown
bool(true)
rc=0
start
shutdown
bool(true)
rc=0
