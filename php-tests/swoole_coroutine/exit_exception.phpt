--TEST--
swoole_coroutine: exit() in a coroutine throws a catchable Swoole\ExitException with the status and SWOOLE_EXIT_IN_COROUTINE; outside a coroutine exit() is PHP's
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
function deep($s) { if ($s === 'none') { exit; } exit($s); }
Co\run(function () {
    foreach (['none', 3, 'text', [1, 2]] as $s) {
        try {
            deep($s);
            echo "not reached\n";
        } catch (Swoole\ExitException $e) {
            var_dump($e->getStatus());
            var_dump($e->getFlags() === SWOOLE_EXIT_IN_COROUTINE, $e->getMessage(), $e instanceof Swoole\Exception);
        }
    }
    go(function () {
        try {
            Co::sleep(0.01);
            exit(7);
        } catch (Swoole\ExitException $e) {
            echo "child caught ", $e->getStatus(), "\n";
        }
    });
});
var_dump(SWOOLE_EXIT_IN_COROUTINE, SWOOLE_EXIT_IN_SERVER);
register_shutdown_function(function () { echo "shutdown\n"; });
echo "before plain exit\n";
exit(0);
echo "not reached\n";
?>
--EXPECT--
NULL
bool(true)
string(11) "swoole exit"
bool(true)
int(3)
bool(true)
string(11) "swoole exit"
bool(true)
string(4) "text"
bool(true)
string(11) "swoole exit"
bool(true)
array(2) {
  [0]=>
  int(1)
  [1]=>
  int(2)
}
bool(true)
string(11) "swoole exit"
bool(true)
child caught 7
int(2)
int(4)
before plain exit
shutdown
