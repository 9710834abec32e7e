--TEST--
swoole_coroutine: the deadlock report lists each stuck coroutine (newest first) with its backtrace; enable_deadlock_check => false silences it; a channel freed with waiters warns
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
function inner() { Co::yield(); }
function outer() { inner(); }
Co\run(function () {
    go(function () { outer(); });
    go(function () { Co::yield(); });
});
echo "first run returned\n";
Co::set(['enable_deadlock_check' => false]);
Co\run(function () {
    $ch = new Swoole\Coroutine\Channel(1);
    $ch->push(1);
    echo "full\n";
    $ch->push(2);
});
echo "second run returned\n";
?>
--EXPECTF--
 =================================================================
  [FATAL ERROR]: all coroutines (count: 2) are asleep - deadlock!
 =================================================================

  [Coroutine-3]
 -----------------------------------------------------------------
#0 %sdeadlock_report_traces.php(6): Swoole\Coroutine::yield()
#1 [internal function]: {closure}()

  [Coroutine-2]
 -----------------------------------------------------------------
#0 %sdeadlock_report_traces.php(2): Swoole\Coroutine::yield()
#1 %sdeadlock_report_traces.php(3): inner()
#2 %sdeadlock_report_traces.php(5): outer()
#3 [internal function]: {closure}()

 =================================================================
first run returned
full
second run returned
[%s]	WARNING	Channel::~Channel() (ERRNO 10003): channel is destroyed, 1 producers will be discarded
