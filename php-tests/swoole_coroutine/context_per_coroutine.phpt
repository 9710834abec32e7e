--TEST--
swoole_coroutine: getContext() gives each coroutine its own ArrayObject; getContext($cid) reads another's
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

Co\run(function () {
    $ctx = Coroutine::getContext();
    var_dump($ctx instanceof ArrayObject, count($ctx));
    $ctx['who'] = 'main';
    var_dump(Coroutine::getContext() === $ctx);
    $cids = [];
    for ($i = 1; $i <= 2; $i++) {
        $cids[$i] = go(function () use ($i) {
            $c = Coroutine::getContext();
            var_dump(isset($c['who']));
            $c['who'] = "child $i";
            Coroutine::sleep(0.02 * $i);
            echo Coroutine::getContext()['who'], "\n";
        });
    }
    echo Coroutine::getContext($cids[2])['who'], "\n";
    echo Coroutine::getContext()['who'], "\n";
    var_dump(Coroutine::getContext(999999));
});
?>
--EXPECT--
bool(true)
int(0)
bool(true)
bool(false)
bool(false)
child 2
main
NULL
child 1
child 2
