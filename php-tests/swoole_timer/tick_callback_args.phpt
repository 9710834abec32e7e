--TEST--
swoole_timer: the tick callback receives the timer id first, then the extra params
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Timer;

$obj = new stdClass;
$obj->name = 'obj';
$id = Timer::tick(10, function (...$args) use (&$id, $obj) {
    var_dump($args[0] === $id);
    var_dump(count($args));
    var_dump($args[1], $args[2], $args[3] === $obj);
    Timer::clear($args[0]);
}, 'first', [1, 2], $obj);
Swoole\Event::wait();
echo "done\n";
?>
--EXPECT--
bool(true)
int(4)
string(5) "first"
array(2) {
  [0]=>
  int(1)
  [1]=>
  int(2)
}
bool(true)
done
