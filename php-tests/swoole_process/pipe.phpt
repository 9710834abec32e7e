--TEST--
swoole_process: the pipe both ways (datagram and stream), redirected stdio, properties, close(), exec()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process;

// Datagram pipe (the default): each write is one read.
$p = new Process(function (Process $p) {
    $p->write("child:" . $p->pid . ':' . ($p->pid === getmypid() ? 'self' : 'other'));
    $p->write("second");
    $p->write("child read: " . $p->read());
});
var_dump(is_int($p->id), is_int($p->pipe), $p->pid);
$pid = $p->start();
var_dump($p->pid === $pid);
echo $p->read() === "child:$pid:self" ? "first ok\n" : "first bad\n";
echo $p->read(), "\n";
var_dump($p->write("from parent"));
echo $p->read(), "\n";
$w = Process::wait();
var_dump($w['pid'] === $pid, $w['code']);

// Stream pipe: bytes, no boundaries.
$p = new Process(function (Process $p) {
    $p->write("ab");
    $p->write("cd");
}, false, Process::PIPE_TYPE_STREAM);
$p->start();
Process::wait();
echo "stream: ", $p->read(), "\n";

// redirect_stdin_and_stdout: echo goes into the pipe, the parent's write is STDIN.
$p = new Process(function () {
    $line = fgets(STDIN);
    echo "echoed [" . trim($line) . "]";
}, true);
$p->start();
$p->write("ping\n");
echo "redirect: ", $p->read(), "\n";
Process::wait();

// No pipe.
$p = new Process(function () {}, false, 0);
var_dump($p->pipe);
var_dump(@$p->write("x"));
$p->start();
Process::wait();

// close(): the child sees end-of-file.
$p = new Process(function (Process $p) {
    $p->write($p->read() === '' ? 'eof' : 'data');
}, false, Process::PIPE_TYPE_STREAM);
$p->start();
$p->close(Process::PIPE_WRITE);
echo "after close: ", $p->read(), "\n";
Process::wait();

// exec(): the child becomes another program, its output on the redirected pipe.
$p = new Process(function (Process $p) {
    $p->exec('/bin/echo', ['exec', 'works']);
}, true);
$p->start();
echo "exec: ", trim($p->read()), "\n";
$w = Process::wait();
var_dump($w['code']);
?>
--EXPECT--
bool(true)
bool(true)
NULL
bool(true)
first ok
second
int(11)
child read: from parent
bool(true)
int(0)
stream: abcd
redirect: echoed [ping]
NULL
bool(false)
after close: eof
exec: exec works
int(0)
