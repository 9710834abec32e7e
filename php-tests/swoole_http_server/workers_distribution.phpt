--TEST--
swoole_http_server: with worker_num=4, new connections are served by several different worker processes
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// 40 sequential connections plus 8 concurrent ones (the handler blocks 200 ms, so a busy
// worker cannot take them all); the handler returns worker_pid and getmypid().
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    if (isset($req->get['slow'])) {
        usleep(200000);
    }
    $resp->end(rsw_server()->worker_pid . ' ' . getmypid());
}, ['worker_num' => 4]), function ($port, ServerTest $t) {
    $seen = [];
    $ok = 0;
    for ($i = 0; $i < 40; $i++) {
        [$status, , $body] = rsw_http_get($port, '/');
        $ok += $status === 200;
        $seen[] = $body;
    }
    $conns = [];
    for ($i = 0; $i < 8; $i++) {
        $c = new RswConn($port);
        $c->send("GET /?slow=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        $conns[] = $c;
    }
    foreach ($conns as $c) {
        $r = $c->readResponse(false, 10);
        $ok += ($r['status'] ?? 0) === 200;
        $seen[] = $r['body'] ?? '';
    }
    echo "200 responses: $ok\n";
    $pids = [];
    $mismatch = [];
    foreach ($seen as $b) {
        [$wp, $my] = explode(' ', $b . ' ');
        if ($wp !== $my || (int) $wp <= 0) {
            $mismatch[] = $b;
        }
        $pids[$wp] = true;
    }
    rsw_check('worker_pid === getmypid() in every response', $mismatch === [], $mismatch);
    $group = $t->groupPids();
    rsw_check('at least 2 distinct workers', count($pids) >= 2, array_keys($pids));
    rsw_check('all are server processes', array_diff(array_keys($pids), $group) === [], [array_keys($pids), $group]);
}, 10, ['ready_count' => 4]);
?>
--EXPECT--
200 responses: 48
worker_pid === getmypid() in every response: OK
at least 2 distinct workers: OK
all are server processes: OK
