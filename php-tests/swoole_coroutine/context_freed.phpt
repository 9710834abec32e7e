--TEST--
swoole_coroutine: a coroutine's context is freed when it ends (an object kept in it is destroyed then)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;

class Guard
{
    public function __construct(public string $name) {}
    public function __destruct() { echo "destruct {$this->name}\n"; }
}

Co\run(function () {
    $cid = go(function () {
        Coroutine::getContext()['g'] = new Guard('sleeper');
        Coroutine::sleep(0.05);
        echo "sleeper ends\n";
    });
    go(function () {
        Coroutine::getContext()['g'] = new Guard('quick');
        echo "quick ends\n";
    });
    echo "parent continues\n";
    Coroutine::sleep(0.1);
    echo "parent after sleep\n";
    var_dump(Coroutine::getContext($cid));
});
echo "run returned\n";
?>
--EXPECT--
quick ends
destruct quick
parent continues
sleeper ends
destruct sleeper
parent after sleep
NULL
run returned
