--TEST--
swoole_runtime: two coroutines reading one hooked socket at once: Swoole's "already been bound to another coroutine" fatal error, exit status 255
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$script = rsw_tmpdir('rsw_bound_') . '/bound.php';
file_put_contents($script, <<<'PHP'
<?php
Swoole\Runtime::enableCoroutine();
Co\run(function () {
    $srv = stream_socket_server("tcp://127.0.0.1:0", $e, $s);
    $name = stream_socket_get_name($srv, false);
    go(function () use ($srv) { $c = stream_socket_accept($srv); Co::sleep(3); });
    $c = stream_socket_client("tcp://$name", $en, $es, 2);
    go(function () use ($c) { fread($c, 10); });
    echo "second reader\n";
    fread($c, 10);
    echo "not reached\n";
});
PHP);
$cmd = implode(' ', array_map('escapeshellarg', array_merge(rsw_php_cmd(), ['-d', 'display_errors=stdout', $script]))) . ' 2>/dev/null';
$t = microtime(true);
exec($cmd, $out, $rc);
echo implode("\n", $out), "\n";
echo "exit status: $rc\n";
rsw_check('at once, not after the 3 s sleep', microtime(true) - $t < 2.5);
?>
--EXPECTF--
second reader

Fatal error: Uncaught Swoole\Error: Socket#%d has already been bound to another coroutine#3, reading of the same socket in coroutine#1 at the same time is not allowed in %s:%d
Stack trace:
#0 %s(%d): fread(Resource id #%d, 10)
%A
exit status: 255
at once, not after the 3 s sleep: OK
