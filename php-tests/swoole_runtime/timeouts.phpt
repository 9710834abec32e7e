--TEST--
swoole_runtime: hooked socket timeouts are honoured (default_socket_timeout, a stream context, stream_set_timeout, phpredis's read_timeout) and only the waiting coroutine waits; unhooked the same timeouts hold the whole process
--SKIPIF--
<?php
require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/../include/services.php';
if (!rsw_have_ext('redis')) die('skip no phpredis');
?>
--FILE--
<?php
require __DIR__ . '/../include/services.php';
$script = rsw_tmpdir('rsw_tmo_') . '/timeouts.php';
file_put_contents($script, <<<'PHP'
<?php
// A server that accepts (in the kernel's backlog) and never answers.
$mute = stream_socket_server("tcp://127.0.0.1:0", $e, $s);
$name = stream_socket_get_name($mute, false);
[$host, $port] = explode(':', $name);
Swoole\Runtime::enableCoroutine($argv[1] === '1' ? SWOOLE_HOOK_ALL : 0);
ini_set('default_socket_timeout', '1');
Co\run(function () use ($name, $host, $port) {
    $ticks = 0;
    $done = false;
    go(function () use (&$ticks, &$done) { while (!$done) { Co::sleep(0.02); $ticks++; } });
    $case = function (string $label, callable $fn) use (&$ticks) {
        $t0 = microtime(true);
        $k0 = $ticks;
        $r = $fn();
        printf("%s: %s %.1f s, other coroutine ran: %s\n", $label, $r, microtime(true) - $t0, $ticks > $k0 ? 'yes' : 'no');
    };
    $case('default_socket_timeout=1', fn() => var_export(@file_get_contents("http://$name/"), true));
    $ctx = stream_context_create(['http' => ['timeout' => 0.5]]);
    $case('context timeout 0.5', fn() => var_export(@file_get_contents("http://$name/", false, $ctx), true));
    $case('stream_set_timeout 0.3', function () use ($name) {
        $c = stream_socket_client("tcp://$name", $en, $es, 1);
        stream_set_timeout($c, 0, 300000);
        $d = fread($c, 10);
        return var_export($d, true) . ' timed_out=' . var_export(stream_get_meta_data($c)['timed_out'], true);
    });
    $case('phpredis read_timeout 0.4', function () use ($host, $port) {
        $r = new Redis();
        $r->connect($host, (int) $port, 1, null, 0, 0.4);
        try {
            $r->get('x');
            return 'no exception';
        } catch (RedisException $e) {
            return get_class($e);
        }
    });
    $done = true;
});
PHP);
foreach (['1', '0'] as $hook) {
    echo "hooks: $hook\n";
    $cmd = implode(' ', array_map('escapeshellarg', array_merge(rsw_php_cmd(), rsw_ext_args(['redis']), [$script, $hook]))) . ' 2>&1';
    echo shell_exec($cmd);
}
?>
--EXPECT--
hooks: 1
default_socket_timeout=1: false 1.0 s, other coroutine ran: yes
context timeout 0.5: false 0.5 s, other coroutine ran: yes
stream_set_timeout 0.3: false timed_out=true 0.3 s, other coroutine ran: yes
phpredis read_timeout 0.4: RedisException 0.4 s, other coroutine ran: yes
hooks: 0
default_socket_timeout=1: false 1.0 s, other coroutine ran: no
context timeout 0.5: false 0.5 s, other coroutine ran: no
stream_set_timeout 0.3: false timed_out=true 0.3 s, other coroutine ran: no
phpredis read_timeout 0.4: RedisException 0.4 s, other coroutine ran: no
