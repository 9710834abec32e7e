--TEST--
swoole_server: start() again after the server ran and shut down warns (Swoole's message) and returns false, in BASE and PROCESS mode
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach ([SWOOLE_BASE, SWOOLE_PROCESS] as $mode) {
    $script = rsw_tempfile('rsw_st2_') . '.php';
    file_put_contents($script, '<?php
$s = new Swoole\Server("127.0.0.1", 0, ' . $mode . ');
$s->set(["worker_num" => 1, "log_level" => SWOOLE_LOG_ERROR, "max_wait_time" => 1]);
$s->on("workerStart", function ($s) { $s->shutdown(); });
$s->on("receive", function () {});
var_dump($s->start());
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
bool(true)
Warning: Swoole\Server::start(): The server have been shutdown, unable to execute Swoole\Server->start() in %s on line 7
bool(false)
rc=0
bool(true)
Warning: Swoole\Server::start(): The server have been shutdown, unable to execute Swoole\Server->start() in %s on line 7
bool(false)
rc=0
