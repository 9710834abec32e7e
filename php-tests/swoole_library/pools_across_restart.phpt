--TEST--
swoole_library: RedisPool and PDOPool across a server restart: the request in flight fails with the client library's error, later requests succeed without a worker restart
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/../include/services.php';
if (!rsw_have_redis() || !rsw_have_mariadb()) die('skip redis-server or mariadbd not installed');
if (!rsw_have_ext('redis') || !rsw_have_ext('pdo_mysql')) die('skip phpredis or pdo_mysql not installed');
?>
--FILE--
<?php
require __DIR__ . '/../include/services.php';
$redis = RswRedis::start();
$db = RswMariaDB::start();
$port = rsw_free_port();
$dir = rsw_tmpdir();
file_put_contents("$dir/server.php", <<<PHP
<?php
use Swoole\Database\{PDOConfig, PDOPool, RedisConfig, RedisPool};
Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL);
\$http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE);
\$http->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
\$http->on('workerStart', function (\$server) {
    global \$redisPool, \$pdoPool;
    \$redisPool = new RedisPool((new RedisConfig)->withPort({$redis->port}), 10);
    \$pdoPool = new PDOPool((new PDOConfig)->withPort({$db->port})->withUsername('root')->withPassword(''), 10);
});
\$http->on('request', function (\$req, \$resp) use (\$http) {
    global \$redisPool, \$pdoPool;
    \$hold = \$req->get['hold'] ?? '0';
    \$pid = ' worker ' . posix_getpid();
    if (\$req->server['request_uri'] === '/redis') {
        \$r = \$redisPool->get();
        try {
            \$r->rawCommand('BLPOP', 'nokey', \$hold === '0' ? '0.001' : \$hold);
            \$redisPool->put(\$r);
            \$resp->end('ok' . \$pid);
        } catch (RedisException \$e) {
            // A broken connection goes back as null; the pool's replacement fails too while redis is down.
            try {
                \$redisPool->put(null);
            } catch (RedisException) {
            }
            \$resp->status(500);
            \$resp->end('RedisException' . \$pid);
        }
        return;
    }
    \$pdo = \$pdoPool->get();
    try {
        \$pdo->query("SELECT SLEEP(\$hold)")->fetchAll();
        \$pdoPool->put(\$pdo);
        \$resp->end('ok' . \$pid);
    } catch (PDOException \$e) {
        \$pdoPool->put(\$pdo);
        \$resp->status(500);
        \$resp->end('PDOException' . \$pid);
    }
});
\$http->start();
PHP);
$srv = (new ScriptServer("$dir/server.php", $port, null, rsw_ext_args(['redis', 'pdo_mysql'])))->start();

function answer(int $port, string $path): string
{
    $r = rsw_request($port, 'GET', $path, [], null, RSW_HOST, 10);
    return $r === null ? 'no answer' : $r['status'] . ' ' . preg_replace('/ worker \d+/', '', $r['body']);
}

function worker_pid(int $port, string $path): string
{
    $r = rsw_request($port, 'GET', $path);
    return preg_match('/worker (\d+)/', $r['body'] ?? '', $m) ? $m[1] : '?';
}

foreach (['redis' => $redis, 'pdo' => $db] as $route => $service) {
    $pidBefore = worker_pid($port, "/$route");
    for ($i = 0; $i < 5; $i++) {
        answer($port, "/$route");
    }
    // A request holding its connection for 3 s while the server restarts under it.
    $inflight = stream_socket_client("tcp://127.0.0.1:$port", $e, $es, 2);
    fwrite($inflight, "GET /$route?hold=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    usleep(300000);
    $service->kill();
    usleep(100000);
    $service->restart();
    stream_set_timeout($inflight, 10);
    $raw = stream_get_contents($inflight);
    fclose($inflight);
    $status = (int) substr($raw, 9, 3);
    $body = preg_replace('/ worker \d+/', '', substr($raw, strpos($raw, "\r\n\r\n") + 4));
    echo "$route in flight: $status $body\n";
    // The idle pooled connections are broken too; each may fail once with the library's error, then all succeed.
    $seen = [];
    for ($i = 0; $i < 25; $i++) {
        $seen[] = answer($port, "/$route");
    }
    $bad = array_diff(array_unique($seen), ['200 ok', "500 " . ($route === 'redis' ? 'RedisException' : 'PDOException')]);
    echo "$route after restart: ", $bad ? 'unexpected ' . json_encode(array_values($bad)) : 'only 200 or the library error',
        ', last 10: ', json_encode(array_unique(array_slice($seen, -10))), "\n";
    echo "$route same worker: ", worker_pid($port, "/$route") === $pidBefore ? 'yes' : 'no', "\n";
}
$srv->stop();
?>
--EXPECT--
redis in flight: 500 RedisException
redis after restart: only 200 or the library error, last 10: ["200 ok"]
redis same worker: yes
pdo in flight: 500 PDOException
pdo after restart: only 200 or the library error, last 10: ["200 ok"]
pdo same worker: yes
