--TEST--
swoole_timer: tick() and after() return a timer id > 0, each id distinct
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Timer;

$a = Timer::after(10, function () {});
$t = Timer::tick(10, function (int $id) {
    Timer::clear($id);
});
var_dump(is_int($a) && $a > 0);
var_dump(is_int($t) && $t > 0);
var_dump($a !== $t);
Swoole\Event::wait();
echo "done\n";
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
done
