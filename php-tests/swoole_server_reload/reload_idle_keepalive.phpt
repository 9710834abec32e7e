--TEST--
swoole_server_reload: an idle keep-alive connection of a reloaded worker is answered once more (Connection: close), not dropped
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// worker_num=1. A keep-alive connection is served by the old worker, then sits idle while the server
// reloads. Its next request (sent after the replacement is ready) still gets an answer from the old
// worker, with Connection: close; a new connection reaches the new worker.
require __DIR__ . '/../include/bootstrap.php';
$events = rsw_tempfile('rsw_ev_');
$log = static function (string $s) use ($events): void {
    file_put_contents($events, $s . "\n", FILE_APPEND | LOCK_EX);
};
$t = new ServerTest(rsw_http_server_fn(function ($req, $resp) {
    $resp->end((string) getmypid());
}, ['worker_num' => 1, 'max_wait_time' => 3], SWOOLE_BASE, [
    'workerStart' => fn($s, $id) => $log('start ' . getmypid()),
    'workerStop' => fn($s, $id) => $log('stop ' . getmypid()),
    'workerExit' => fn($s, $id) => $log('exit ' . getmypid()),
    'beforeReload' => fn($s) => $log('beforeReload'),
    'afterReload' => fn($s) => $log('afterReload'),
]), ['ready_count' => 1]);
$t->start();

$c = new RswConn($t->port);
$c->send(rsw_build_request('GET', '/', [], null, 'HTTP/1.1', $t->port));
$r1 = $c->readResponse(false, 5);
$old = (int) $r1['body'];
rsw_check('first answer keeps the connection', rsw_header($r1, 'connection') === 'keep-alive', $r1['headers']);

posix_kill($t->pid, SIGUSR1);
rsw_check('replacement started', rsw_wait_until(fn() => $t->readyCount() >= 2, 5));
usleep(100000);
rsw_check('old worker still draining', rsw_pid_alive($old));

$c->send(rsw_build_request('GET', '/', [], null, 'HTTP/1.1', $t->port));
$r2 = $c->readResponse(false, 5);
rsw_check('idle connection answered by the old worker', ($r2['status'] ?? 0) === 200 && (int) $r2['body'] === $old, $r2);
rsw_check('with Connection: close', rsw_header($r2, 'connection') === 'close', $r2['headers'] ?? null);
rsw_check('then closed', $c->closedByPeer(3));

[$st, , $body] = rsw_http_get($t->port);
rsw_check('new connection reaches the new worker', $st === 200 && (int) $body !== $old && (int) $body > 0, [$st, $body]);
rsw_check('old worker exits', rsw_wait_until(fn() => !rsw_pid_alive($old), 5));
rsw_check('afterReload fired', rsw_wait_until(fn() => str_contains(file_get_contents($events), 'afterReload'), 3));
$ev = file_get_contents($events);
rsw_check('old worker ran workerStop and workerExit', str_contains($ev, "stop $old\n") && str_contains($ev, "exit $old\n"), $ev);
rsw_check('order', strpos($ev, 'beforeReload') < strpos($ev, "stop $old") && strpos($ev, "exit $old") < strpos($ev, 'afterReload'), $ev);
echo $t->stop(), "\n";
?>
--EXPECT--
first answer keeps the connection: OK
replacement started: OK
old worker still draining: OK
idle connection answered by the old worker: OK
with Connection: close: OK
then closed: OK
new connection reaches the new worker: OK
old worker exits: OK
afterReload fired: OK
old worker ran workerStop and workerExit: OK
order: OK
exit=0
