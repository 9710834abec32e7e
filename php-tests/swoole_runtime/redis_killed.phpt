--TEST--
swoole_runtime: hook_flags in one worker: a redis-server killed mid-query gives RedisException in that request's coroutine only; the worker answers other requests meanwhile and afterwards (same pid)
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/../include/services.php';
if (!rsw_have_redis()) die('skip no redis-server');
if (!rsw_have_ext('redis')) die('skip no phpredis');
?>
--FILE--
<?php
require __DIR__ . '/hooks.inc';
$redis = RswRedis::start();
$srv = rsw_hook_server(<<<'PHP'
function ($req, $resp) use ($cfg) {
    if ($req->server['request_uri'] === '/block') {
        $r = new Redis();
        $r->connect('127.0.0.1', $cfg['port'], 2);
        try {
            $v = $r->blPop(['never'], 8);
            $resp->end('no exception: ' . json_encode($v));
        } catch (RedisException $e) {
            $resp->end('RedisException');
        }
        return;
    }
    $resp->end('pong ' . getmypid());
}
PHP, SWOOLE_HOOK_ALL, ['redis'], ['port' => $redis->port]);
$block = stream_socket_client("tcp://127.0.0.1:{$srv->port}", $en, $es, 2);
fwrite($block, "GET /block HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
usleep(300000);
$t = microtime(true);
[, $b1] = rsw_concurrent_get($srv->port, '/ping', 1);
rsw_check('answers while the other request waits on redis', microtime(true) - $t < 0.5 && str_starts_with($b1[0], 'pong'), $b1);
$redis->kill();
stream_set_timeout($block, 5);
$resp = stream_get_contents($block);
echo "blocked request: ", substr($resp, strpos($resp, "\r\n\r\n") + 4), "\n";
[, $b2] = rsw_concurrent_get($srv->port, '/ping', 3);
rsw_check('still serving, same worker', $b2 === array_fill(0, 3, $b1[0]), [$b1, $b2]);
$srv->stop();
echo trim($srv->log()) === '' ? "no log\n" : $srv->log();
?>
--EXPECT--
answers while the other request waits on redis: OK
blocked request: RedisException
still serving, same worker: OK
no log
