--TEST--
swoole_coroutine: Swoole\Coroutine\run($fn, ...$args) passes the args and waits for all coroutines
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use function Swoole\Coroutine\run;
use Swoole\Coroutine;

$log = [];
$r = run(function (string $a, int $b) use (&$log) {
    $log[] = "main $a $b cid>0=" . var_export(Coroutine::getCid() > 0, true);
    for ($i = 3; $i >= 1; $i--) {
        go(function () use ($i, &$log) {
            Coroutine::sleep($i * 0.02);
            $log[] = "child $i";
        });
    }
}, 'x', 7);
var_dump($r);
echo implode("\n", $log), "\n";
// a second scheduler may run after the first one ended
var_dump(Swoole\Coroutine\run(function () { echo "second run\n"; }));
?>
--EXPECT--
bool(true)
main x 7 cid>0=true
child 1
child 2
child 3
second run
bool(true)
