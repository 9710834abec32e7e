--TEST--
swoole_http_server: seed 001's blocking-worker script (100 workers, enable_coroutine off, 10 phpredis GETs per request) runs unchanged against a real redis-server and answers 300 concurrent keep-alive clients from several workers
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
if (!is_executable('/usr/bin/redis-server') && trim((string) shell_exec('command -v redis-server')) === '') die('skip redis-server not installed');
$probe = shell_exec(escapeshellarg(PHP_BINARY) . ' -n ' . (file_exists(ini_get('extension_dir') . '/igbinary.so') ? '-d extension=igbinary ' : '') . '-d extension=redis -r "echo class_exists(\'Redis\') ? 1 : 0;" 2>/dev/null');
if (trim((string) $probe) !== '1') die('skip phpredis not installed');
?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';
// The seed's script, exactly as printed.
$seed = <<<'SEED'
/**
 * Created by PhpStorm.
 * User: randy
 * Date: 2021/2/22
 */

$http = new Swoole\Http\Server('127.0.0.1', 9501);

$http->set([
    'worker_num'       => 100,
    'enable_coroutine' => false,
]);


$http->on('start', function ($server) {
    echo "Swoole http server is started at http://127.0.0.1:9501\n";
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
                self::$redisCli->connect("127.0.0.1", 6379);
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
SEED;
$redisPort = rsw_free_port();
$redis = proc_open(['redis-server', '--port', (string) $redisPort, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
$redisPid = proc_get_status($redis)['pid'];
try {
    if (!rsw_wait_until(fn() => rsw_port_open($redisPort), 5)) {
        throw new RuntimeException('redis-server did not start');
    }
    $port = rsw_free_port();
    $dir = rsw_tmpdir();
    // Only the ports change (tests use free ports).
    $script = str_replace(['9501', '6379'], [(string) $port, (string) $redisPort], $seed);
    file_put_contents("$dir/seed001.php", "<?php\n" . $script . "\n");
    $extra = file_exists(ini_get('extension_dir') . '/igbinary.so') ? ['-d', 'extension=igbinary'] : [];
    $srv = (new ScriptServer("$dir/seed001.php", $port, null, array_merge($extra, ['-d', 'extension=redis'])))->start(20.0);
    try {
        rsw_check('all 100 workers started', rsw_wait_until(fn() => count(preg_split('/\s+/',
            trim((string) @file_get_contents("/proc/{$srv->pid}/task/{$srv->pid}/children")))) === 100, 20));
        // 300 keep-alive connections, 3 requests each, all in flight at once.
        $conns = [];
        for ($i = 0; $i < 300; $i++) {
            $conns[] = new RswConn($port);
        }
        $ok = 0;
        $workers = [];
        for ($round = 0; $round < 3; $round++) {
            foreach ($conns as $c) {
                $c->buf = '';
                $c->send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            }
            foreach ($conns as $c) {
                if (rsw_read_until($c, fn($b) => preg_match('/\r\n\r\nOKworker_id -> (\d+)$/', $b), 15)) {
                    preg_match('/worker_id -> (\d+)$/', $c->buf, $m);
                    $workers[$m[1]] = true;
                    $ok++;
                }
            }
        }
        foreach ($conns as $c) {
            $c->close();
        }
        echo "answers: $ok of 900\n";
        // Which worker accepts is the kernel's choice (one shared listening socket): on a busy machine a few
        // awake workers take most connections, so only "more than one" is certain.
        rsw_check('served by several of the 100 workers', count($workers) >= 2, count($workers));
        rsw_check('start message printed', str_contains($srv->log(), "Swoole http server is started at http://127.0.0.1:$port"), $srv->log());
    } finally {
        $code = $srv->stop(SIGTERM, 15.0);
    }
    echo "exit code: $code\n";
} finally {
    posix_kill($redisPid, SIGTERM);
    rsw_wait_until(fn() => !proc_get_status($redis)['running'], 5) || posix_kill($redisPid, SIGKILL);
    proc_close($redis);
}
?>
--EXPECT--
all 100 workers started: OK
answers: 900 of 900
served by several of the 100 workers: OK
start message printed: OK
exit code: 0
