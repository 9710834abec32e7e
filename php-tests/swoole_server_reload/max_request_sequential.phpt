--TEST--
swoole_server_reload: max_request replaces a worker after N requests, gracefully (workerStop, workerExit), no failed request
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$events = rsw_tempfile('rsw_ev_');
$log = static function (string $s) use ($events): void {
    file_put_contents($events, $s . "\n", FILE_APPEND | LOCK_EX);
};
$t = new ServerTest(rsw_http_server_fn(function ($req, $resp) {
    $resp->end((string) getmypid());
}, ['worker_num' => 1, 'max_request' => 5, 'max_request_grace' => 0], SWOOLE_BASE, [
    'workerStop' => fn($s, $id) => $log('stop ' . getmypid()),
    'workerExit' => fn($s, $id) => $log('exit ' . getmypid()),
]), ['ready_count' => 1]);
$t->start();
$pids = [];
$failed = 0;
$c = new RswConn($t->port);
// A retiring worker keeps serving until its replacement is ready (a fork and a workerStart away),
// so the requests are spaced a little.
for ($i = 0; $i < 23; $i++) {
    usleep(30000);
    if ($c->eof) {
        $c = new RswConn($t->port);
    }
    $c->send(rsw_build_request('GET', '/', [], null, 'HTTP/1.1', $t->port));
    $r = $c->readResponse(false, 5);
    if (($r['status'] ?? 0) !== 200) {
        $failed++;
        continue;
    }
    $pids[] = (int) $r['body'];
    if (rsw_header($r, 'connection') === 'close') {
        $c->closedByPeer(2);
        $c = new RswConn($t->port);
    }
}
$counts = array_count_values($pids);
rsw_check('no failed request', $failed === 0);
rsw_check('several workers served', count($counts) >= 3, $counts);
rsw_check('none served more than a few past max_request', max($counts) <= 9, $counts);
$first = $pids[0];
rsw_check('first worker stopped gracefully', rsw_wait_until(fn() => str_contains(file_get_contents($events), "exit $first\n"), 5)
    && str_contains(file_get_contents($events), "stop $first\n"));
echo $t->stop(), "\n";
rsw_check('log mentions max_request', str_contains($t->log(), 'max_request reached'));
?>
--EXPECT--
no failed request: OK
several workers served: OK
none served more than a few past max_request: OK
first worker stopped gracefully: OK
exit=0
log mentions max_request: OK
