--TEST--
swoole_runtime: SWOOLE_HOOK_STDIO (shell_exec's pipe, STDIN) and SWOOLE_HOOK_FILE (plain-file reads and writes) suspend only the calling coroutine, and async.file:// does so whatever the flags; with the flag off the same calls hold the thread
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

/** Runs $fn in a coroutine next to a ticker; returns [$fn's result, ticks counted until $fn returned]. */
function with_ticker(callable $fn, float $every): array
{
    $out = null;
    Co\run(function () use ($fn, $every, &$out) {
        $ticks = 0;
        $running = true;
        go(function () use (&$ticks, &$running, $every) {
            while ($running) {
                Co::sleep($every);
                $ticks++;
            }
        });
        $r = $fn();
        $out = [$r, $ticks];
        $running = false;
    });
    return $out;
}

// STDIO: the pipe shell_exec() reads.
foreach ([SWOOLE_HOOK_ALL => 'on', SWOOLE_HOOK_ALL & ~SWOOLE_HOOK_STDIO => 'off'] as $flags => $name) {
    Swoole\Runtime::enableCoroutine($flags);
    [$r, $ticks] = with_ticker(fn () => shell_exec('sleep 0.3; echo done'), 0.02);
    rsw_check("shell_exec, STDIO $name", $r === "done\n" && ($name === 'on' ? $ticks >= 5 : $ticks === 0), [$r, $ticks]);
}

// STDIO: a child whose STDIN is a pipe reads it in one coroutine while another one runs.
$child = <<<'PHP'
Swoole\Runtime::enableCoroutine((int) $argv[1]);
Co\run(function () {
    go(function () { Co::sleep(0.05); echo "tick\n"; });
    $s = fread(STDIN, 100);
    echo 'read:', $s;
});
PHP;
foreach ([SWOOLE_HOOK_ALL => 'on', SWOOLE_HOOK_ALL & ~SWOOLE_HOOK_STDIO => 'off'] as $flags => $name) {
    $p = proc_open([...rsw_php_cmd(), '-r', $child, (string) $flags], [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    usleep(300000);
    fwrite($pipes[0], "hello\n");
    fclose($pipes[0]);
    $out = stream_get_contents($pipes[1]);
    $err = stream_get_contents($pipes[2]);
    proc_close($p);
    rsw_check("STDIN, STDIO $name", $out === ($name === 'on' ? "tick\nread:hello\n" : "read:hello\ntick\n"), [$out, $err]);
}

// FILE: 16 MiB read in 8 KiB freads (a sparse file: no disk used).
$dir = rsw_tmpdir('rsw_file_hook_');
$big = "$dir/big";
$fp = fopen($big, 'w');
ftruncate($fp, 16 << 20);
fclose($fp);
$readAll = function (string $url): array {
    $fp = fopen($url, 'r');
    $n = 0;
    $zero = true;
    while (!feof($fp)) {
        $s = fread($fp, 8192);
        $n += strlen($s);
        $zero = $zero && trim($s, "\0") === '';
    }
    fclose($fp);
    return [$n, $zero];
};
foreach ([SWOOLE_HOOK_ALL => 'on', SWOOLE_HOOK_ALL & ~SWOOLE_HOOK_FILE => 'off'] as $flags => $name) {
    Swoole\Runtime::enableCoroutine($flags);
    [$r, $ticks] = with_ticker(fn () => $readAll($big), 0.001);
    rsw_check("fread loop, FILE $name", $r === [16 << 20, true] && ($name === 'on' ? $ticks >= 1 : $ticks === 0), [$r, $ticks]);
}

// async.file:// with FILE off: still off the thread; stat and unlink through it too.
Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL & ~SWOOLE_HOOK_FILE);
[$r, $ticks] = with_ticker(fn () => $readAll("async.file://$big"), 0.001);
rsw_check('async.file:// read', $r === [16 << 20, true] && $ticks >= 1, [$r, $ticks]);
rsw_check('async.file:// stat', file_exists("async.file://$big") && filesize("async.file://$big") === 16 << 20);

// FILE on: writes, file_put_contents/file_get_contents, include, in coroutines; the data is intact.
Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL);
$data = random_bytes(300000);
[$r] = with_ticker(function () use ($dir, $data) {
    $fp = fopen("$dir/w", 'w');
    foreach (str_split($data, 70000) as $piece) {
        fwrite($fp, $piece);
    }
    fclose($fp);
    file_put_contents("$dir/w2", $data);
    file_put_contents("$dir/inc.php", '<?php return 6 * 7;');
    $inc = [];
    $wg = new Swoole\Coroutine\WaitGroup();
    for ($i = 0; $i < 3; $i++) {
        $wg->add();
        go(function () use ($dir, &$inc, $wg) {
            $inc[] = include "$dir/inc.php";
            $wg->done();
        });
    }
    $wg->wait();
    return [md5_file("$dir/w") === md5($data), file_get_contents("$dir/w2") === $data, $inc];
}, 0.001);
rsw_check('writes and reads in a coroutine', $r === [true, true, [42, 42, 42]], $r);
rsw_check('outside a coroutine', file_get_contents("$dir/w2") === $data);
rsw_check('async.file:// unlink', unlink("async.file://$dir/w2") && !file_exists("$dir/w2"));
Swoole\Runtime::enableCoroutine(0);
?>
--EXPECT--
shell_exec, STDIO on: OK
shell_exec, STDIO off: OK
STDIN, STDIO on: OK
STDIN, STDIO off: OK
fread loop, FILE on: OK
fread loop, FILE off: OK
async.file:// read: OK
async.file:// stat: OK
writes and reads in a coroutine: OK
outside a coroutine: OK
async.file:// unlink: OK
