--TEST--
swoole_server_reload: pid_file holds the master pid while the server runs and is removed at exit
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$pidFile = rsw_tempfile('rsw_pid_');
unlink($pidFile);
$t = new ServerTest(rsw_http_server_fn(function ($req, $resp) {
    $resp->end('ok');
}, ['worker_num' => 2, 'pid_file' => $pidFile]), ['ready_count' => 2]);
$t->start();
rsw_check('pid file holds the master pid', trim((string) @file_get_contents($pidFile)) === (string) $t->pid);
echo $t->stop(), "\n";
rsw_check('pid file removed', !file_exists($pidFile));
?>
--EXPECT--
pid file holds the master pid: OK
exit=0
pid file removed: OK
