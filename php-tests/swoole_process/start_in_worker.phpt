--TEST--
swoole_process: start() inside a server worker's request coroutine: the child gets its own loop (its timer fires, it is no worker), the worker keeps serving
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    $p = new Swoole\Process(function (Swoole\Process $p) {
        Swoole\Timer::after(10, function () use ($p) {
            $p->write('child timer, cid ' . Co::getCid() . ', worker_id ' . rsw_server()->worker_id
                . ', timers ' . count(iterator_to_array(Swoole\Timer::list())));
        });
    });
    Swoole\Timer::after(60000, fn() => null); // the worker's own timer: not the child's
    $p->start();
    $out = $p->read();
    $w = Swoole\Process::wait();
    $resp->end("$out; exit {$w['code']}");
}), function (int $port) {
    for ($i = 0; $i < 2; $i++) {
        [$status, , $body] = rsw_http_get($port, '/');
        echo $status, ' ', $body, "\n";
    }
});
?>
--EXPECT--
200 child timer, cid 1, worker_id -1, timers 1; exit 0
200 child timer, cid 1, worker_id -1, timers 1; exit 0
