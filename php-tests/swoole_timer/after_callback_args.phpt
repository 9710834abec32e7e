--TEST--
swoole_timer: the after callback receives only the extra params (no timer id)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Timer;

Timer::after(10, function (...$args) {
    var_dump($args);
}, 'a', 42);
Timer::after(20, function (...$args) {
    var_dump($args);
});
Swoole\Event::wait();
echo "done\n";
?>
--EXPECT--
array(2) {
  [0]=>
  string(1) "a"
  [1]=>
  int(42)
}
array(0) {
}
done
