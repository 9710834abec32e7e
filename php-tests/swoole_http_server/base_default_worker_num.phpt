--TEST--
swoole_http_server: a SWOOLE_BASE server without worker_num has one worker (Swoole's constructor sets it), a SWOOLE_PROCESS one has one per CPU
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

$script = <<<'PHP'
<?php
$mode = $argv[2] === 'process' ? SWOOLE_PROCESS : SWOOLE_BASE;
$s = new Swoole\Http\Server('127.0.0.1', (int) $argv[1], $mode);
$s->set(['log_file' => '/dev/null']);
$s->on('workerStart', function ($s, $id) {
    if ($id === 0) {
        Swoole\Timer::after(500, function () use ($s) {
            echo 'worker_num ', $s->setting['worker_num'] === ($GLOBALS['argv'][2] === 'process' ? swoole_cpu_num() : 1) ? 'as expected' : $s->setting['worker_num'], "\n";
            $s->shutdown();
        });
    }
    if ($id > 0) {
        echo "a second worker started\n";
    }
});
$s->on('request', function ($req, $resp) { $resp->end('ok'); });
$s->start();
PHP;
$file = rsw_tempfile('rsw_base_workers_');
file_put_contents($file, $script);
foreach (['base', 'process'] as $mode) {
    echo "== $mode\n";
    $cmd = array_merge(rsw_php_cmd(), ['-d', 'display_errors=stdout', $file, (string) rsw_free_port(), $mode]);
    $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    $err = stream_get_contents($pipes[2]);
    proc_close($p);
    if ($mode === 'process') {
        // One line per worker past the first, as many as the CPUs.
        $out = str_replace("a second worker started\n", '', $out);
    }
    echo $out, $err;
}
@unlink($file);
?>
--EXPECT--
== base
worker_num as expected
== process
worker_num as expected
