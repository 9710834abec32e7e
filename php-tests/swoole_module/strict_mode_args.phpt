--TEST--
swoole_module: under strict_types a mismatching scalar is PHP's TypeError (int to float still allowed)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
foreach (['5', 5.0, null, true] as $bad) {
    try {
        Swoole\Timer::after($bad, function () {});
        echo "no error\n";
    } catch (TypeError $e) {
        echo $e->getMessage(), "\n";
    }
}
try {
    new Swoole\Http\Server('127.0.0.1', '0');
} catch (TypeError $e) {
    echo $e->getMessage(), "\n";
}
Co\run(function () {
    $ch = new Swoole\Coroutine\Channel(1);
    $t = microtime(true);
    var_dump($ch->pop(1)); // an int where a float is declared: allowed in strict mode
    echo microtime(true) - $t > 0.9 ? "waited\n" : "did not wait\n";
});
?>
--EXPECT--
Swoole\Timer::after(): Argument #1 ($ms) must be of type int, string given
Swoole\Timer::after(): Argument #1 ($ms) must be of type int, float given
Swoole\Timer::after(): Argument #1 ($ms) must be of type int, null given
Swoole\Timer::after(): Argument #1 ($ms) must be of type int, bool given
Swoole\Server::__construct(): Argument #2 ($port) must be of type int, string given
bool(false)
waited
