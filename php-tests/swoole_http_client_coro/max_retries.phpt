--TEST--
swoole_http_client_coro: max_retries repeats a request answered 502/503 (on a new connection); without it the 503 stands; a negative value warns
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
    static $n = 0;
    $n++;
    if ($req->server['request_uri'] === '/flaky' && $n % 3 !== 0) {
        $resp->status($n % 3 === 1 ? 503 : 502);
        $resp->end("busy $n");
        return;
    }
    $resp->end("ok $n");
}, ['worker_num' => 1]), function (int $port) {
    Co\run(function () use ($port) {
        $c = new Co\Http\Client('127.0.0.1', $port);
        var_dump($c->get('/flaky'), $c->statusCode, $c->body);
        $c->set(['max_retries' => 2]);
        var_dump($c->get('/flaky'), $c->statusCode, $c->body);
        $c->set(['max_retries' => 1]);
        var_dump($c->get('/flaky'), $c->statusCode, $c->body);
        var_dump($c->set(['max_retries' => -1]));
    });
});
?>
--EXPECTF--
bool(true)
int(503)
string(6) "busy 1"
bool(true)
int(200)
string(4) "ok 3"
bool(true)
int(502)
string(6) "busy 5"

Warning: Swoole\Coroutine\Http\Client::set(): max_retries must be greater than or equal to 0, got -1 in %s on line %d
bool(false)
