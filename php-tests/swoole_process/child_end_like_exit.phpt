--TEST--
swoole_process: a child ends as exit() ends a request (shutdown functions run), and after exit() in its callback the loop still runs what was left, waiting on exit_condition
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
error_reporting(E_ALL & ~E_DEPRECATED); // Swoole 6 notes the loop run at request end
use Swoole\Coroutine;
use Swoole\Process;

$p = new Process(function () {
    register_shutdown_function(function () { echo "child shutdown function\n"; });
    go(function () {
        try {
            exit(0);
        } catch (Swoole\ExitException $e) {
            echo "caught exit in coroutine\n";
        }
    });
});
$p->start();
var_dump(Process::wait(true)['code']);

$q = new Process(function () {
    Coroutine::set(['exit_condition' => function () {
        return Coroutine::stats()['coroutine_num'] === 0;
    }]);
    Coroutine::create(function () { (new Coroutine\Channel())->pop(); });
    echo "callback exits\n";
    exit;
});
$q->start();
usleep(300000);
var_dump(Process::wait(false)); // still waiting on exit_condition
Process::kill($q->pid, SIGKILL);
var_dump(Process::wait(true)['signal']);
?>
--EXPECT--
caught exit in coroutine
child shutdown function
int(0)
callback exits
bool(false)
int(9)
