--TEST--
swoole_http_server: SIGINT to the master stops every server process and exits 0
--DESCRIPTION--
rswoole contract: Swoole 6.2.1 itself does not trap SIGINT in the master (it dies of the signal and leaves workers behind).
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// After SIGINT (Ctrl-C): exit code 0 without SIGKILL, no process of the server left, the port is closed.
require __DIR__ . '/../include/bootstrap.php';
$t = new ServerTest(rsw_http_server_fn(function ($req, $resp) { $resp->end('ok'); }, ['worker_num' => 2]), ['ready_count' => 2]);
$t->start();
[$status] = rsw_http_get($t->port, '/');
var_dump($status);
echo 'processes: ', count($t->groupPids()) >= 3 ? '>=3' : count($t->groupPids()), "\n";
$t->stop(SIGINT);
echo $t->status(), "\n";
var_dump($t->leftovers);
var_dump(rsw_port_open($t->port));
?>
--EXPECT--
int(200)
processes: >=3
exit=0
array(0) {
}
bool(false)
