--TEST--
swoole_function: swoole_coroutine_*, swoole_event_* and swoole_timer_* spell the class methods
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$cid = swoole_coroutine_create(function ($a) {
    swoole_coroutine_defer(function () { echo "deferred\n"; });
    $t = swoole_timer_tick(50, function () {});
    var_dump(swoole_timer_info($t)['interval']);
    var_dump(iterator_to_array(swoole_timer_list()) === [$t]);
    var_dump(swoole_timer_stats()['num']);
    swoole_timer_clear($t);
    echo "body $a\n";
}, 'x');
var_dump($cid);
swoole_event_defer(function () { echo "event defer\n"; });
var_dump(swoole_async_set(['max_coroutine' => 5000]), Swoole\Coroutine::getOptions()['max_coroutine']);
swoole_event_wait();
echo "end\n";
?>
--EXPECT--
int(50)
bool(true)
int(1)
body x
deferred
int(1)
bool(true)
int(5000)
event defer
end
