<?php
// Seed 001's coroutine variant written with Swoole's own pool (Swoole\Database\RedisPool of 100) instead
// of a hand-made Channel pool: one worker, runtime hooks on, 10 GETs per request on one pooled
// connection. Runs unchanged on Swoole and on rswoole (bench/seed001.sh, the "pool" rows). Ports from
// RSW_PORT / RSW_REDIS_PORT (9501 / 6379 otherwise).
use Swoole\Database\RedisConfig;
use Swoole\Database\RedisPool;

define('RSW_PORT', (int) (getenv('RSW_PORT') ?: 9501));
define('RSW_REDIS_PORT', (int) (getenv('RSW_REDIS_PORT') ?: 6379));

Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL);

$http = new Swoole\Http\Server('127.0.0.1', RSW_PORT);
$http->set([
    'worker_num' => 1,
]);

$pool = null;
$http->on('workerStart', function ($server) use (&$pool) {
    $pool = new RedisPool((new RedisConfig())->withHost('127.0.0.1')->withPort(RSW_REDIS_PORT), 100);
    $pool->fill();
});

$http->on('request', function ($request, $response) use ($http, &$pool) {
    $redis = $pool->get();
    for ($i = 0; $i < 10; $i++) {
        $val = $redis->get('test_key1');
    }
    $pool->put($redis);
    $response->end('OK' . 'worker_id -> ' . $http->worker_id);
});
$http->start();
