--TEST--
swoole_coroutine: Coroutine::yield() suspends until resume($cid), which runs the coroutine at once
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    $cid = go(function () {
        echo "1 child before yield\n";
        var_dump(Coroutine::yield());
        echo "4 child resumed once\n";
        Coroutine::yield();
        echo "6 child resumed twice\n";
    });
    echo "2 parent after go\n";
    var_dump(Coroutine::exists($cid));
    echo "3 parent resumes\n";
    var_dump(Coroutine::resume($cid));
    echo "5 parent resumes again\n";
    Coroutine::resume($cid);
    echo "7 parent end\n";
    var_dump(Coroutine::exists($cid));
});
?>
--EXPECT--
1 child before yield
2 parent after go
bool(true)
3 parent resumes
bool(true)
4 child resumed once
bool(true)
5 parent resumes again
6 child resumed twice
7 parent end
bool(false)
