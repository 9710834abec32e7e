--TEST--
swoole_process: signal_listener_num counts Process::signal() listeners; with enable_coroutine off (set before the fork) a signal callback runs outside a coroutine and its exit() ends the child with that code
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
error_reporting(E_ALL & ~E_DEPRECATED); // Swoole 6 notes the loop run at request end
use Swoole\Coroutine;
use Swoole\Process;

swoole_async_set(['enable_coroutine' => false]);
$p = new Process(function () {
    Coroutine::set(['exit_condition' => function () {
        return Coroutine::stats()['signal_listener_num'] === 0;
    }]);
    Process::signal(SIGTERM, function () {
        echo 'SIGTERM in coroutine: ', json_encode(Coroutine::getCid() > 0), "\n";
        Process::signal(SIGTERM, null);
        exit(123);
    });
    echo 'listeners: ', Coroutine::stats()['signal_listener_num'], "\n";
});
$p->start();
usleep(300000);
var_dump(Process::wait(false)); // still running: a listener is left
Process::kill($p->pid, SIGTERM);
var_dump(Process::wait(true)['code']);
?>
--EXPECT--
listeners: 1
bool(false)
SIGTERM in coroutine: false
int(123)
