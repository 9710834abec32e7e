--TEST--
swoole_coroutine: getContext() returns a Swoole\Coroutine\Context (an ArrayObject, alias Co\Context) freed when its coroutine ends
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--INI--
swoole.use_shortname=On
--FILE--
<?php
class Res { function __construct(public $n) {} function __destruct() { echo "free {$this->n}\n"; } }
Co\run(function () {
    $ctx = Co::getContext();
    var_dump(get_class($ctx), $ctx instanceof ArrayObject, $ctx instanceof Co\Context);
    go(function () {
        Co::getContext()['r'] = new Res(1);
        Co::getContext()['r2'] = new Res(2);
        echo "child ends\n";
    });
    echo "parent goes on\n";
});
var_dump(Co::getContext());
?>
--EXPECT--
string(24) "Swoole\Coroutine\Context"
bool(true)
bool(true)
child ends
free 1
free 2
parent goes on
NULL
