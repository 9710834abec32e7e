--TEST--
swoole_event: work left for the end of the script is waited for with Swoole's deprecation; none after Event::wait() or Co\run(); nothing is waited for after an uncaught exception
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$cases = [
    'timer left' => 'Swoole\Timer::after(5, function () { echo "timer\n"; }); echo "end\n";',
    'go() left' => 'go(function () { Co::sleep(0.005); echo "co\n"; }); echo "end\n";',
    'cleared timer' => 'Swoole\Timer::after(1000, fn() => 1); Swoole\Timer::clearAll(); echo "end\n";',
    'Event::wait()' => 'Swoole\Timer::after(5, function () { echo "timer\n"; }); Swoole\Event::wait(); echo "end\n";',
    'Co\run()' => 'Co\run(function () { Swoole\Timer::after(5, function () { echo "timer\n"; }); }); echo "end\n";',
    'left after wait' => 'Swoole\Event::wait(); Swoole\Timer::after(5, function () { echo "timer\n"; }); echo "end\n";',
    'deprecations off' => 'error_reporting(E_ALL & ~E_DEPRECATED); Swoole\Timer::after(5, function () { echo "timer\n"; }); echo "end\n";',
    'uncaught' => 'Swoole\Timer::after(5, function () { echo "timer\n"; }); throw new Exception("boom");',
];
foreach ($cases as $name => $code) {
    $file = rsw_tempfile('rsw_rshut_');
    file_put_contents($file, "<?php\n$code\n");
    $cmd = array_merge(rsw_php_cmd(), ['-d', 'display_errors=stdout', $file]);
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    stream_get_contents($pipes[2]);
    $code = proc_close($p);
    $out = preg_replace('/ in \/\S+:\d+\n.*/s', " [...]\n", $out);
    echo "== $name (exit $code)\n", trim($out), "\n";
}
?>
--EXPECT--
== timer left (exit 0)
end

Deprecated: swoole_event_rshutdown(): Event::wait() in shutdown function is deprecated in Unknown on line 0
timer
== go() left (exit 0)
end

Deprecated: swoole_event_rshutdown(): Event::wait() in shutdown function is deprecated in Unknown on line 0
co
== cleared timer (exit 0)
end

Deprecated: swoole_event_rshutdown(): Event::wait() in shutdown function is deprecated in Unknown on line 0
== Event::wait() (exit 0)
timer
end
== Co\run() (exit 0)
timer
end
== left after wait (exit 0)
end

Deprecated: swoole_event_rshutdown(): Event::wait() in shutdown function is deprecated in Unknown on line 0
timer
== deprecations off (exit 0)
end
timer
== uncaught (exit 255)
Fatal error: Uncaught Exception: boom [...]
