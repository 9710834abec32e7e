--TEST--
swoole_library: RedisPool and PDOPool of 10 behind HTTP routes, 200 concurrent clients: every request answered, never more than 10 server-side connections
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/../include/services.php';
if (!rsw_have_redis() || !rsw_have_mariadb()) die('skip redis-server or mariadbd not installed');
if (!rsw_have_ext('redis') || !rsw_have_ext('pdo_mysql')) die('skip phpredis or pdo_mysql not installed');
if (trim((string) shell_exec('command -v curl')) === '') die('skip curl not installed');
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
\$http->on('workerStart', function () {
    global \$redisPool, \$pdoPool;
    \$redisPool = new RedisPool((new RedisConfig)->withHost('127.0.0.1')->withPort({$redis->port}), 10);
    \$pdoPool = new PDOPool((new PDOConfig)->withHost('127.0.0.1')->withPort({$db->port})->withDbname('test')
        ->withUsername('root')->withPassword(''), 10);
});
\$http->on('request', function (\$req, \$resp) {
    global \$redisPool, \$pdoPool;
    if (\$req->server['request_uri'] === '/redis') {
        \$r = \$redisPool->get();
        try {
            \$r->incr('hits');
            // Hold the connection a little, as a real request would.
            \$r->rawCommand('BLPOP', 'nokey', '0.01');
            \$redisPool->put(\$r);
            \$resp->end('redis ok');
        } catch (RedisException \$e) {
            \$redisPool->put(null);
            \$resp->status(500);
            \$resp->end('RedisException');
        }
        return;
    }
    \$pdo = \$pdoPool->get();
    try {
        \$row = \$pdo->query('SELECT SLEEP(0.01), 41 + 1')->fetch(PDO::FETCH_NUM);
        \$pdoPool->put(\$pdo);
        \$resp->end('pdo ' . \$row[1]);
    } catch (PDOException \$e) {
        \$pdoPool->put(\$pdo);
        \$resp->status(500);
        \$resp->end('PDOException');
    }
});
\$http->start();
PHP);
$srv = (new ScriptServer("$dir/server.php", $port, null, rsw_ext_args(['redis', 'pdo_mysql'])))->start();

/** Count of clients redis-server has now (CLIENT LIST, less this monitor connection). */
function redis_clients(int $port): int
{
    $s = stream_socket_client("tcp://127.0.0.1:$port", $e, $es, 1);
    fwrite($s, "CLIENT LIST\r\n");
    $head = fgets($s);
    $len = (int) substr($head, 1);
    $body = '';
    while (strlen($body) < $len + 2) {
        $body .= fread($s, $len + 2 - strlen($body));
    }
    fclose($s);
    return substr_count(trim($body), "\n"); // one line per client, less this one
}

function mariadb_clients(RswMariaDB $db): int
{
    $out = shell_exec('mariadb --no-defaults -h127.0.0.1 -P' . $db->port . ' -uroot -N -e "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()" 2>&1');
    return (int) trim((string) $out);
}

foreach (['redis' => fn() => redis_clients($redis->port), 'pdo' => fn() => mariadb_clients($db)] as $route => $count) {
    $out = rsw_tempfile();
    $t0 = microtime(true);
    $curl = proc_open(['curl', '-s', '-Z', '--parallel-max', '200', '-o', '/dev/null', '-w', '%{http_code}\n',
        "http://127.0.0.1:$port/$route?i=[1-200]"], [0 => ['file', '/dev/null', 'r'], 1 => ['file', $out, 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
    $max = 0;
    while (proc_get_status($curl)['running']) {
        $max = max($max, $count());
        usleep(20000);
    }
    proc_close($curl);
    $codes = array_count_values(array_filter(explode("\n", (string) file_get_contents($out))));
    ksort($codes);
    echo "$route: ", json_encode($codes), ', server-side connections ', ($max >= 1 && $max <= 10 ? 'between 1 and 10' : "= $max"), "\n";
    $elapsed = microtime(true) - $t0;
    // 200 requests holding a connection 10 ms each: serial would take >= 2 s; 10 pooled connections ~0.2 s.
    echo "$route: concurrent ", ($elapsed < 1.5 ? 'yes' : sprintf('no (%.2fs)', $elapsed)), ', peak ', ($max >= 5 ? '>= 5' : $max), "\n";
}
$srv->stop();
echo $srv->log() === '' ? "clean log\n" : $srv->log();
?>
--EXPECT--
redis: {"200":200}, server-side connections between 1 and 10
redis: concurrent yes, peak >= 5
pdo: {"200":200}, server-side connections between 1 and 10
pdo: concurrent yes, peak >= 5
clean log
