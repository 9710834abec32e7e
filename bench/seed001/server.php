<?php
// Seed 001's blocking-worker server, as printed (bench/seed001.sh). The only change: the ports come
// from RSW_PORT / RSW_REDIS_PORT when set (the seed's 9501 / 6379 otherwise), via the two
// define()s below that replace the literals.
define('RSW_PORT', (int) (getenv('RSW_PORT') ?: 9501));
define('RSW_REDIS_PORT', (int) (getenv('RSW_REDIS_PORT') ?: 6379));
/**
 * Created by PhpStorm.
 * User: randy
 * Date: 2021/2/22
 */

$http = new Swoole\Http\Server('127.0.0.1', RSW_PORT);

$http->set([
    'worker_num'       => 100,
    'enable_coroutine' => false,
]);


$http->on('start', function ($server) {
    echo "Swoole http server is started at http://127.0.0.1:" . RSW_PORT . "\n";
});

$http->on('workerStart', function ($server) {
    class CachePool
    {
        /**
         * @var Redis
         */
        private static $redisCli;

        public static function getInstance()
        {
            if (is_null(self::$redisCli)) {
                self::$redisCli = new Redis();
                self::$redisCli->connect("127.0.0.1", RSW_REDIS_PORT);
            }
            return self::$redisCli;

        }
    }
});

$http->on('request', function ($request, $response) use ($http) {
    $val = CachePool::getInstance()->get("test_key1"); 
    $val = CachePool::getInstance()->get("test_key1");
    $val = CachePool::getInstance()->get("test_key1");
    $val = CachePool::getInstance()->get("test_key1");
    $val = CachePool::getInstance()->get("test_key1");
    $val = CachePool::getInstance()->get("test_key1");
    $val = CachePool::getInstance()->get("test_key1");
    $val = CachePool::getInstance()->get("test_key1");
    $val = CachePool::getInstance()->get("test_key1");
    $val = CachePool::getInstance()->get("test_key1");
    $response->end("OK" . "worker_id -> " . $http->worker_id);
});
$http->start();
