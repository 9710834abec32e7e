--TEST--
swoole_http_server: a fatal error in a request coroutine before its first wait (in the handler, or in a \Fiber it runs) answers 500, runs the coroutine's defers, exits the worker with 255, and the replacement serves
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$events = rsw_tempfile('rsw_ev_');
$pidFile = rsw_tempfile('rsw_pid_');
rsw_run_server(rsw_http_server_fn(function ($req, $resp) use ($pidFile, $events) {
    $uri = $req->server['request_uri'];
    if ($uri === '/') {
        $resp->end((string) getmypid());
        return;
    }
    file_put_contents($pidFile, (string) getmypid());
    Swoole\Coroutine::defer(function () use ($events, $uri) {
        file_put_contents($events, "defer $uri\n", FILE_APPEND);
    });
    if ($uri === '/fiber') {
        $f = new Fiber(function () {
            trigger_error('rsw fatal in a fiber', E_USER_ERROR);
        });
        $f->start();
    }
    trigger_error('rsw fatal at once', E_USER_ERROR);
}, ['worker_num' => 1], SWOOLE_BASE, [
    'workerError' => function ($s, $id, $pid, $code, $sig) use ($events) {
        file_put_contents($events, "error pid=$pid code=$code\n", FILE_APPEND);
    },
]), function ($port, ServerTest $t) use ($events, $pidFile) {
    foreach (['/fatal', '/fiber'] as $i => $path) {
        $r = rsw_request($port, 'GET', $path);
        echo "$path: ", $r['status'] ?? 'closed', "\n";
        $dead = (int) file_get_contents($pidFile);
        rsw_check("$path: the worker exits with 255",
            rsw_wait_until(fn() => str_contains((string) file_get_contents($events), "pid=$dead code=255"), 5),
            file_get_contents($events));
        rsw_check("$path: the defer ran", str_contains((string) file_get_contents($events), "defer $path\n"),
            file_get_contents($events));
        rsw_check("$path: a replacement started", rsw_wait_until(fn() => $t->readyCount() >= $i + 2, 5), $t->readyCount());
        [$s, , $b] = rsw_http_get($port, '/');
        rsw_check("$path: the replacement serves", $s === 200 && (int) $b !== $dead, [$s, $b, $dead]);
    }
    rsw_check('the fatal errors are logged',
        str_contains($t->log(), 'rsw fatal at once') && str_contains($t->log(), 'rsw fatal in a fiber'), $t->log());
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
/fatal: 500
/fatal: the worker exits with 255: OK
/fatal: the defer ran: OK
/fatal: a replacement started: OK
/fatal: the replacement serves: OK
/fiber: 500
/fiber: the worker exits with 255: OK
/fiber: the defer ran: OK
/fiber: a replacement started: OK
/fiber: the replacement serves: OK
the fatal errors are logged: OK
