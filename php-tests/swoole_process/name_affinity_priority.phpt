--TEST--
swoole_process: name() (visible in /proc/PID/cmdline), setAffinity()/getAffinity(), setPriority()/getPriority(), swoole_set_process_name()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process;

$p = new Process(function (Process $p) {
    $p->name('rsw-test-child-name');
    $p->write('named');
    sleep(5);
});
$pid = $p->start();
echo $p->read(), "\n";
$cmdline = file_get_contents("/proc/$pid/cmdline");
var_dump(str_starts_with($cmdline, 'rsw-test-child-name'));
Process::kill($pid);
Process::wait();

$cpus = Process::getAffinity();
var_dump(is_array($cpus) && count($cpus) >= 1 && $cpus[0] === 0);
var_dump(Process::setAffinity([0]));
var_dump(Process::getAffinity());
var_dump(Process::setAffinity([]));
var_dump(@Process::setAffinity([4096]));
var_dump(Process::setAffinity($cpus));

$q = new Process(fn() => null);
$before = $q->getPriority(PRIO_PROCESS);
var_dump(is_int($before));
var_dump($q->setPriority(PRIO_PROCESS, $before + 1));
var_dump($q->getPriority(PRIO_PROCESS) === $before + 1);
var_dump($q->getPriority(PRIO_PROCESS, getmypid()) === $before + 1);
var_dump(swoole_set_process_name('rsw-main-name'), str_starts_with(file_get_contents('/proc/self/cmdline'), 'rsw-main-name'));
?>
--EXPECT--
named
bool(true)
bool(true)
bool(true)
array(1) {
  [0]=>
  int(0)
}
bool(false)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
