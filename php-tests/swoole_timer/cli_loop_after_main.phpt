--TEST--
swoole_timer: in a plain CLI script timers run after the main code ends, and the script exits when none remain
--DESCRIPTION--
No Event::wait(): the event loop starts by itself once the main script returns. The script is run in a
child php (bounded by a 5 s deadline) so that a loop that never ends shows up as a failure, not a hang.
Real Swoole 6.x also prints "Deprecated: ... Event::wait() in shutdown function is deprecated" here; the
child runs with E_DEPRECATED off because the test is about the loop, not that notice.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$script = rsw_tempfile('rsw_timer_cli_');
file_put_contents($script, <<<'PHP'
<?php
Swoole\Timer::after(60, function () { echo "after 60\n"; });
Swoole\Timer::tick(25, function ($id) {
    static $n = 0;
    echo "tick ", ++$n, "\n";
    if ($n === 3) {
        Swoole\Timer::clear($id);
    }
});
echo "main end\n";
PHP);
$cmd = array_merge(rsw_php_cmd(), ['-d', 'error_reporting=' . (E_ALL & ~E_DEPRECATED), $script]);
$t = microtime(true);
$p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
stream_set_blocking($pipes[1], false);
$out = '';
$deadline = $t + 5;
// proc_get_status() reports the exit code only once: keep the status that saw the exit
while (($st = proc_get_status($p))['running'] && microtime(true) < $deadline) {
    $out .= stream_get_contents($pipes[1]);
    usleep(10000);
}
if ($st['running']) {
    proc_terminate($p, SIGKILL);
    echo "still running after 5 s\n";
}
$out .= stream_get_contents($pipes[1]);
$err = stream_get_contents($pipes[2]);
proc_close($p);
echo $out;
var_dump($err);
var_dump($st['running'] ? null : $st['exitcode']);
var_dump(microtime(true) - $t < 3);
?>
--EXPECTF--
main end
tick 1
tick 2
after 60
tick 3
string(0) ""
int(0)
bool(true)
