--TEST--
swoole_runtime: hooked reads and writes in request coroutines (the loop-task-free wait of fdwait::io): a pool of phpredis connections shared by 60 concurrent requests, one socket's timeout honoured on each of several waits (its reusable timer pushed forward, not fired early or late), data that arrives before the timeout ends the wait
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
    global $pool, $mute;
    $uri = $req->server['request_uri'];
    if ($uri === '/redis') {
        if ($pool === null) {
            $pool = new Swoole\Coroutine\Channel(8);
            for ($i = 0; $i < 8; $i++) {
                $r = new Redis();
                $r->connect('127.0.0.1', $cfg['port'], 2);
                $pool->push($r);
            }
        }
        $r = $pool->pop();
        $ok = 0;
        for ($i = 0; $i < 10; $i++) {
            $ok += $r->incr('n') > 0 ? 1 : 0;
            Co::sleep(0.001);
        }
        $pool->push($r);
        $resp->end("ok $ok");
        return;
    }
    if ($uri === '/count') {
        $r = $pool->pop();
        $resp->end((string) $r->get('n'));
        $pool->push($r);
        return;
    }
    if ($uri === '/timeouts') {
        // A listener that accepts (in the kernel's backlog) and never answers.
        $mute ??= stream_socket_server('tcp://127.0.0.1:0', $en, $es);
        $c = stream_socket_client('tcp://' . stream_socket_get_name($mute, false), $en, $es, 1);
        $out = [];
        foreach ([0.3, 0.2, 0.4] as $t) {
            stream_set_timeout($c, 0, (int) ($t * 1e6));
            $t0 = microtime(true);
            $d = fread($c, 10);
            $out[] = sprintf('%.1f:%s:%s', microtime(true) - $t0, var_export($d, true),
                var_export(stream_get_meta_data($c)['timed_out'], true));
        }
        $resp->end(implode(' ', $out));
        return;
    }
    if ($uri === '/early') {
        // Data 0.2 s into a 1 s timeout ends the wait then; the next wait still times out after 1 s.
        [$a, $b] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, 0);
        go(function () use ($b) { Co::sleep(0.2); fwrite($b, 'hi'); });
        stream_set_timeout($a, 1);
        $t0 = microtime(true);
        $d1 = fread($a, 10);
        $t1 = microtime(true);
        $d2 = fread($a, 10);
        $resp->end(sprintf('%s %.1f | %s %.1f', $d1, $t1 - $t0, var_export($d2, true), microtime(true) - $t1));
        return;
    }
    $resp->end('pong');
}
PHP, SWOOLE_HOOK_ALL, ['redis'], ['port' => $redis->port]);

[$t, $bodies] = rsw_concurrent_get($srv->port, '/redis', 60);
rsw_check('60 concurrent requests over 8 pooled connections all answered', $bodies === array_fill(0, 60, 'ok 10'), rsw_summary($bodies));
[, $n] = rsw_concurrent_get($srv->port, '/count', 1);
rsw_check('every INCR reached redis once', $n[0] === '600', $n);

$t0 = microtime(true);
[, $b] = rsw_concurrent_get($srv->port, '/timeouts', 3);
$el = microtime(true) - $t0;
echo "timeouts: {$b[0]}\n";
rsw_check('three sockets waited at once (not one after the other)', $el < 1.6 && count(array_unique($b)) === 1, [$el, $b]);
[, $b] = rsw_concurrent_get($srv->port, '/early', 1);
echo "early: {$b[0]}\n";
[, $b] = rsw_concurrent_get($srv->port, '/ping', 1);
echo "after: {$b[0]}\n";
$srv->stop();
echo trim($srv->log()) === '' ? "no log\n" : $srv->log();
?>
--EXPECT--
60 concurrent requests over 8 pooled connections all answered: OK
every INCR reached redis once: OK
timeouts: 0.3:false:true 0.2:false:true 0.4:false:true
three sockets waited at once (not one after the other): OK
early: hi 0.2 | false 1.0
after: pong
no log
