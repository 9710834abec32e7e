--TEST--
swoole_event: Event::defer() callbacks run after the current code, in the order they were added
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Event;

Event::defer(function () { echo "defer 1\n"; });
Event::defer(function () {
    echo "defer 2\n";
    Event::defer(function () { echo "defer 4 (added by defer 2)\n"; });
});
Event::defer(function () { echo "defer 3\n"; });
echo "main\n";
Event::wait();
echo "after wait\n";
?>
--EXPECT--
main
defer 1
defer 2
defer 3
defer 4 (added by defer 2)
after wait
