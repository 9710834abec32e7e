--TEST--
swoole_coroutine: getBackTrace() returns the coroutine's frames as an array (own or another's), false for an unknown cid
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

function inner_wait()
{
    Coroutine::sleep(0.05);
}

function outer_call()
{
    $bt = Coroutine::getBackTrace();
    var_dump(is_array($bt));
    var_dump($bt[0]['function'], $bt[0]['class'], $bt[1]['function']);
    inner_wait();
}

Co\run(function () {
    $cid = go('outer_call');
    $bt = Coroutine::getBackTrace($cid);
    var_dump(is_array($bt));
    $fns = array_column($bt, 'function');
    var_dump(in_array('inner_wait', $fns, true), in_array('outer_call', $fns, true));
    var_dump(Coroutine::getBackTrace(999999));
});
?>
--EXPECT--
bool(true)
string(12) "getBackTrace"
string(16) "Swoole\Coroutine"
string(10) "outer_call"
bool(true)
bool(true)
bool(true)
bool(false)
