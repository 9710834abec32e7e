--TEST--
swoole_server_reload: with worker_max_concurrency, requests still waiting in a PROCESS-mode worker's queue when it restarts are answered 503 once the running one finishes with its 200 (in BASE mode, as in Swoole, they are served)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach ([SWOOLE_BASE => 'base', SWOOLE_PROCESS => 'process'] as $mode => $name) {
    rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
        if ($req->get['id'] === '0') {
            // The others are queued behind this one by now.
            Co::sleep(0.5);
            rsw_server()->reload();
            Co::sleep(0.5);
        }
        $resp->end("id={$req->get['id']}");
    }, ['worker_max_concurrency' => 1, 'reload_async' => true, 'max_wait_time' => 5, 'log_level' => SWOOLE_LOG_ERROR], $mode), function ($port) use ($name) {
        $conns = [];
        foreach ([0, 1, 2] as $id) {
            $c = new RswConn($port);
            $c->send("GET /?id=$id HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            $conns[$id] = $c;
            usleep(100000);
        }
        $out = [];
        foreach ($conns as $id => $c) {
            $r = $c->readResponse(false, 5);
            $out[] = "$id:" . ($r ? $r['status'] . ' ' . $r['body'] : 'none');
        }
        echo "$name ", implode(' ', $out), "\n";
    });
}
?>
--EXPECT--
base 0:200 id=0 1:200 id=1 2:200 id=2
process 0:200 id=0 1:503  2:503 
