--TEST--
swoole_http_server: a request in flight when SIGTERM arrives still completes before the server exits 0
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// The handler sleeps 300 ms; SIGTERM is sent 100 ms into the request; the client must get the full answer.
require __DIR__ . '/../include/bootstrap.php';
$t = new ServerTest(rsw_http_server_fn(function ($req, $resp) {
    usleep(300000);
    $resp->end('finished');
}, ['worker_num' => 1, 'max_wait_time' => 5]), ['ready_count' => 1]);
$t->start();
$c = new RswConn($t->port);
$c->send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
usleep(100000);
posix_kill($t->pid, SIGTERM);
$r = $c->readResponse(false, 5);
var_dump($r['status'] ?? null, $r['body'] ?? null);
$t->waitExit(8);
echo $t->stop(), "\n";
?>
--EXPECT--
int(200)
string(8) "finished"
exit=0
