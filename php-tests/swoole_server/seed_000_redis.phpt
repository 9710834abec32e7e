--TEST--
swoole_server: seed 000's Redis example (redis connected in workerStart, $server->redis used in onReceive) against a real redis-server
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
$seed = <<<'SEED'
$server = new Swoole\Server("0.0.0.0", 9502);

//必须在onWorkerStart回调中创建redis/mysql连接
$server->on('workerstart', function($server, $id) {
    $redis = new Redis();
    $redis->connect('127.0.0.1', 6379);
    $server->redis = $redis;
});

$server->on('receive', function (Swoole\Server $server, $fd, $from_id, $data) { 
    $value = $server->redis->get("key");
    $server->send($fd, "Swoole: ".$value);
});

$server->start();
SEED;
$redisPort = rsw_free_port();
$redis = proc_open(['redis-server', '--port', (string) $redisPort, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
$redisPid = proc_get_status($redis)['pid'];
try {
    if (!rsw_wait_until(fn() => rsw_port_open($redisPort), 5)) {
        throw new RuntimeException('redis-server did not start');
    }
    $r = stream_socket_client("tcp://127.0.0.1:$redisPort", $e, $es, 2);
    fwrite($r, "*3\r\n\$3\r\nSET\r\n\$3\r\nkey\r\n\$11\r\nfrom-redis!\r\n");
    echo 'SET: ', trim(fgets($r)), "\n";
    fclose($r);

    $port = rsw_free_port();
    $dir = rsw_tmpdir();
    // The seed as printed, but for its ports and 127.0.0.1 (tests never listen beyond loopback).
    $script = str_replace(['9502', '6379', '"0.0.0.0"'], [(string) $port, (string) $redisPort, '"127.0.0.1"'], $seed);
    file_put_contents("$dir/seed000_redis.php", "<?php\n" . $script . "\n");
    $extra = file_exists(ini_get('extension_dir') . '/igbinary.so') ? ['-d', 'extension=igbinary'] : [];
    $srv = (new ScriptServer("$dir/seed000_redis.php", $port, null, array_merge($extra, ['-d', 'extension=redis'])))->start();
    try {
        $answers = [];
        for ($i = 0; $i < 3; $i++) {
            $c = new RswConn($port);
            $c->send("get\n");
            rsw_read_until($c, fn($b) => str_contains($b, 'from-redis!'), 5);
            $answers[] = $c->buf;
            $c->close();
        }
        echo implode("\n", array_unique($answers)), "\n";
    } finally {
        $code = $srv->stop();
    }
    echo "exit code: $code\n";
} finally {
    posix_kill($redisPid, SIGTERM);
    rsw_wait_until(fn() => !proc_get_status($redis)['running'], 5) || posix_kill($redisPid, SIGKILL);
    proc_close($redis);
}
?>
--EXPECT--
SET: +OK
Swoole: from-redis!
exit code: 0
