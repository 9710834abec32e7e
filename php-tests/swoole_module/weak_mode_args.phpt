--TEST--
swoole_module: scalar arguments follow PHP's weak-mode rules (numeric strings, floats, bools, null deprecation)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Laravel Octane passes the port as a string; internal functions coerce in weak mode.
$s = new Swoole\Http\Server('127.0.0.1', '0', '1');
var_dump($s->port > 0, $s->mode);
var_dump((new Swoole\Coroutine\Channel('2'))->capacity);
var_dump((new Swoole\Coroutine\Channel(3.0))->capacity);
var_dump((new Swoole\Coroutine\Channel(true))->capacity);
$id = Swoole\Timer::after('5', function () { echo "cleared timer fired\n"; });
var_dump(Swoole\Timer::clear((string) $id));
Swoole\Timer::after(5.0, function (...$a) { echo "float interval fired\n"; });
foreach ([[], 'abc', '5 apples', new stdClass] as $bad) {
    try {
        Swoole\Timer::after($bad, function () {});
        echo "no error\n";
    } catch (TypeError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
// null for a non-nullable int: PHP 8.1's deprecation, then 0
var_dump(@Swoole\Timer::after(null, function () {}));
Swoole\Timer::after(null, function () {});
Swoole\Event::wait();
?>
--EXPECTF--
bool(true)
int(1)
int(2)
int(3)
int(1)
bool(true)
TypeError: Swoole\Timer::after(): Argument #1 ($ms) must be of type int, array given
TypeError: Swoole\Timer::after(): Argument #1 ($ms) must be of type int, string given
%A
TypeError: Swoole\Timer::after(): Argument #1 ($ms) must be of type int, stdClass given
bool(false)

Deprecated: Swoole\Timer::after(): Passing null to parameter #1 ($ms) of type int is deprecated in %s on line %d

Warning: Swoole\Timer::after(): Timer must be greater than or equal to 1 in %s on line %d
float interval fired
