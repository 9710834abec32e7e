--TEST--
swoole_process: signal() callbacks run on the event loop (Event::wait, Co\run, a child's loop), null removes, alarm()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process;
use Swoole\Timer;

// In the script's loop.
Process::signal(SIGUSR1, function (int $sig) {
    echo "loop got ", $sig === SIGUSR1 ? 'SIGUSR1' : $sig, " in coroutine ", Swoole\Coroutine::getCid() > 0 ? 'yes' : 'no', "\n";
    var_dump(Process::signal(SIGUSR1, null));
});
Timer::after(20, fn() => Process::kill(getmypid(), SIGUSR1));
Timer::after(200, fn() => print("timer after the signal\n"));
Swoole\Event::wait();
var_dump(@Process::signal(SIGUSR1, null));
var_dump(@Process::signal(0, fn() => null));

// Inside Co\run.
Co\run(function () {
    Process::signal(SIGUSR2, function () { echo "co got SIGUSR2\n"; Process::signal(SIGUSR2, null); });
    Process::kill(getmypid(), SIGUSR2);
    Co::sleep(0.1);
    echo "co done\n";
});

// SIGCHLD: reap a child from its handler.
Process::signal(SIGCHLD, function () {
    while ($r = Process::wait(false)) {
        echo "reaped child, code ", $r['code'], "\n";
    }
    Process::signal(SIGCHLD, null);
});
(new Process(function () { exit(4); }, false, 0))->start();
Timer::after(500, fn() => null);
Swoole\Event::wait();

// A child that handles SIGTERM in its own loop; the parent's handler is not its.
Process::signal(SIGUSR1, fn() => print("parent handler must not run in the child\n"));
$p = new Process(function (Process $p) {
    Process::signal(SIGTERM, function () use ($p) {
        $p->write("child got SIGTERM");
        Timer::clearAll();
    });
    posix_kill(getmypid(), SIGUSR1); // SIG_DFL in the child: it dies of it
    Timer::tick(50, fn() => null);
}, false, 2, true);
$pid = $p->start();
$w = Process::wait();
echo "child killed by its own SIGUSR1: ", var_export($w['signal'] === SIGUSR1, true), "\n";
Process::signal(SIGUSR1, null);

$p = new Process(function (Process $p) {
    Process::signal(SIGTERM, function () use ($p) {
        $p->write("child got SIGTERM");
        Timer::clearAll();
    });
    Timer::tick(50, fn() => null);
}, false, 2, true);
$pid = $p->start();
usleep(200000);
Process::kill($pid, SIGTERM);
echo $p->read(), "\n";
$w = Process::wait();
var_dump($w['code'], $w['signal']);

// alarm(): SIGALRM every 10 ms.
$n = 0;
Process::signal(SIGALRM, function () use (&$n) {
    if (++$n === 3) {
        Process::alarm(-1);
        Process::signal(SIGALRM, null);
        echo "alarm x3\n";
    }
});
var_dump(Process::alarm(10000));
Co\run(function () use (&$n) {
    for ($i = 0; $i < 100 && $n < 3; $i++) {
        Co::sleep(0.01);
    }
});
Timer::after(1000, fn() => null);
var_dump(@Process::alarm(1000));
Timer::clearAll();
?>
--EXPECT--
loop got SIGUSR1 in coroutine yes
bool(true)
timer after the signal
bool(false)
bool(false)
co got SIGUSR2
co done
reaped child, code 4
child killed by its own SIGUSR1: true
child got SIGTERM
int(0)
int(0)
bool(true)
alarm x3
bool(false)

Deprecated: swoole_event_rshutdown(): Event::wait() in shutdown function is deprecated in Unknown on line 0
