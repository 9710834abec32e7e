--TEST--
swoole_coroutine: go() in a plain script runs at once; the waiting rest runs after the main code ends
--DESCRIPTION--
Real Swoole 6.x prints "Deprecated: ... Event::wait() in shutdown function is deprecated" when the loop is
left to the end of the script; E_DEPRECATED is off here because the test is about the coroutine, not the notice.
--INI--
error_reporting=E_ALL & ~E_DEPRECATED
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$cid = go(function () {
    echo "child starts in coroutine ", Swoole\Coroutine::getCid() > 0 ? 'yes' : 'no', "\n";
    Swoole\Coroutine::sleep(0.05);
    echo "child resumed\n";
});
var_dump($cid > 0);
echo "main end\n";
?>
--EXPECT--
child starts in coroutine yes
bool(true)
main end
child resumed
