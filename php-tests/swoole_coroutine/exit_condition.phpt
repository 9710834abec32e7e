--TEST--
swoole_coroutine: Coroutine::set(['exit_condition' => fn]) keeps the loop (and the process) alive while it returns false, with a coroutine stuck forever
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$script = rsw_tempfile('rsw_exit_cond_') . '.php';
file_put_contents($script, <<<'PHP'
<?php
Swoole\Coroutine::set(['exit_condition' => function () {
    return file_exists($GLOBALS['argv'][1]);
}]);
go(function () {
    (new Swoole\Coroutine\Channel)->pop();
});
echo "script end\n";
PHP);
$flag = $script . '.done';
$p = proc_open(array_merge(rsw_php_cmd(), [$script, $flag]), [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
usleep(300000);
var_dump(proc_get_status($p)['running']);
touch($flag); // the condition turns true: the loop ends, the deadlock is reported
$t = microtime(true);
$out = stream_get_contents($pipes[1]);
var_dump(microtime(true) - $t < 3);
echo $out;
proc_close($p);
@unlink($script);
@unlink($flag);
?>
--EXPECTF--
bool(true)
bool(true)
script end
%A[FATAL ERROR]: all coroutines (count: 1) are asleep - deadlock!%A
