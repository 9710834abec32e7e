--TEST--
swoole_http_server: SIGTERM to the master stops every server process and exits 0
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// After SIGTERM: exit code 0 without SIGKILL, no process of the server left, the port is closed.
require __DIR__ . '/../include/bootstrap.php';
$t = rsw_run_server(rsw_http_server_fn(function ($req, $resp) { $resp->end('ok'); }, ['worker_num' => 2]),
    function ($port, ServerTest $t) {
        [$status] = rsw_http_get($port, '/');
        var_dump($status);
        echo 'processes: ', count($t->groupPids()) >= 3 ? '>=3' : count($t->groupPids()), "\n";
    }, 10, ['ready_count' => 2]);
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
