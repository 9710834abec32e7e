--TEST--
swoole_http_server: a handler type-hinted with the wrong class (seed 000) logs a TypeError, answers 500 and keeps serving
--DESCRIPTION--
rswoole contract: Swoole 6.2.1 treats the TypeError as fatal (no response, worker restarted).
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// function ($request, Swoole\Http\Server $response) receives a Swoole\Http\Response: PHP throws TypeError at the call.
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(function ($port, $ready) {
    $http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE);
    $http->set(['worker_num' => 1]);
    $http->on('workerStart', function () use ($ready) { $ready(); });
    $http->on('request', function ($request, Swoole\Http\Server $response) {
        $response->end('unreachable');
    });
    $http->start();
}, function ($port, ServerTest $t) {
    for ($i = 0; $i < 3; $i++) {
        $r = rsw_request($port, 'GET', '/');
        echo $r['status'] ?? 'no response', "\n";
    }
    rsw_wait_until(fn() => str_contains($t->log(), 'TypeError'), 2);
    $log = $t->log();
    rsw_check('log names the TypeError', str_contains($log, 'TypeError') && str_contains($log, 'Swoole\Http\Server'), $log);
    var_dump($t->alive());
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
500
500
500
log names the TypeError: OK
bool(true)
