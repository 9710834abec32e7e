--TEST--
swoole_process: System V message queue between parent and child (useQueue, push, pop, statQueue, freeQueue, IPC_NOWAIT, ORIENT mode)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process;

$key = 0x52570000 + (getmypid() & 0xffff);
// The child pushes; the parent pops (BALANCE: any message type).
$p = new Process(function (Process $p) {
    foreach (['one', 'two', str_repeat('x', 8000)] as $m) {
        $p->push($m);
    }
}, false, 0);
var_dump($p->useQueue($key));
var_dump($p->msgQueueKey === $key, is_int($p->msgQueueId));
$p->start();
Process::wait();
var_dump($p->statQueue());
echo $p->pop(), ' ', $p->pop(), ' ', strlen($p->pop()), "\n";

// The parent pushes; the child pops and answers on the pipe.
$p2 = new Process(function (Process $p) {
    $p->write('child popped ' . $p->pop());
});
$p2->useQueue($key);
$p2->push('hello child');
$p2->start();
echo $p2->read(), "\n";
Process::wait();

// IPC_NOWAIT: pop() on an empty queue returns false at once.
$q = new Process(fn() => null, false, 0);
$q->useQueue($key, SWOOLE_MSGQUEUE_BALANCE | Process::IPC_NOWAIT);
$t = microtime(true);
var_dump($q->pop(), microtime(true) - $t < 0.5);
var_dump(@$q->push(''));

// ORIENT: pop() takes only messages of type id + 1.
$a = new Process(fn() => null, false, 0);
$b = new Process(fn() => null, false, 0);
$a->useQueue($key, SWOOLE_MSGQUEUE_ORIENT | Process::IPC_NOWAIT);
$b->useQueue($key, SWOOLE_MSGQUEUE_ORIENT | Process::IPC_NOWAIT);
$a->push('for a');
$b->push('for b');
echo $b->pop(), ' / ', $a->pop(), "\n";
var_dump($a->freeQueue(), @$a->statQueue());
$nq = new Process(fn() => null, false, 0);
var_dump(@$nq->pop(), @$nq->statQueue());
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
array(2) {
  ["queue_num"]=>
  int(3)
  ["queue_bytes"]=>
  int(8006)
}
one two 8000
child popped hello child
bool(false)
bool(true)
bool(false)
for b / for a
bool(true)
bool(false)
bool(false)
bool(false)
