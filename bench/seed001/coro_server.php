<?php
// Seed 001's coroutine variant, written in the style of Swoole's documentation: one worker, runtime
// hooks on (SWOOLE_HOOK_ALL), a Channel pool of 100 phpredis connections filled in workerStart,
// 10 GETs per request on one pooled connection. Runs unchanged on Swoole and on rswoole
// (bench/seed001.sh). Ports from RSW_PORT / RSW_REDIS_PORT (9501 / 6379 otherwise).
define('RSW_PORT', (int) (getenv('RSW_PORT') ?: 9501));
define('RSW_REDIS_PORT', (int) (getenv('RSW_REDIS_PORT') ?: 6379));

Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL);

$http = new Swoole\Http\Server('127.0.0.1', RSW_PORT);
$http->set([
    'worker_num' => 1,
]);

$pool = null;
$http->on('workerStart', function ($server) use (&$pool) {
    $pool = new Swoole\Coroutine\Channel(100);
    for ($i = 0; $i < 100; $i++) {
        $redis = new Redis();
        $redis->connect('127.0.0.1', RSW_REDIS_PORT);
        $pool->push($redis);
    }
});

$http->on('request', function ($request, $response) use ($http, &$pool) {
    $redis = $pool->pop();
    for ($i = 0; $i < 10; $i++) {
        $val = $redis->get('test_key1');
    }
    $pool->push($redis);
    $response->end('OK' . 'worker_id -> ' . $http->worker_id);
});
$http->start();
