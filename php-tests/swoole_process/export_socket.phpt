--TEST--
swoole_process: exportSocket() gives a Coroutine\Socket over this process's end of the pipe (the child's end in the child, the parent's end elsewhere, also in a sibling), the same object on each call; stream and datagram pipes; a pool worker reaches another worker through getProcess()->exportSocket()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process;

// Parent <-> child over a SOCK_STREAM pipe, with recvPacket-free line framing.
$child = new Process(function (Process $p) {
    $s = $p->exportSocket();
    $line = $s->recvLine();
    $s->sendAll(strtoupper($line));
    $s->sendAll('same object: ' . var_export($s === $p->exportSocket(), true) . "\n");
}, false, SOCK_STREAM, true);
$child->start();
Co\run(function () use ($child) {
    $s = $child->exportSocket();
    echo get_class($s), ' ', $s->type === SOCK_STREAM ? 'stream' : 'other', "\n";
    $s->sendAll("hello child\n");
    echo $s->recvLine();
    echo $s->recvLine();
});
Process::wait(true);

// A sibling writes to the first child's pipe through the parent's end it inherited.
$a = new Process(function (Process $p) {
    echo 'a got: ' . $p->exportSocket()->recv() . "\n";
}, false, SOCK_DGRAM, true);
$a->start();
$b = new Process(function (Process $p) use ($a) {
    $a->exportSocket()->send('from b');
}, false, SOCK_DGRAM, true);
$b->start();
Process::wait(true);
Process::wait(true);

// Without a pipe: Swoole's warning and false.
$none = new Process(function () {}, false, 0);
var_dump(@$none->exportSocket());

// A pool: worker 1 sends to worker 0 through getProcess(0)->exportSocket().
$pool = new Swoole\Process\Pool(2, SWOOLE_IPC_UNIXSOCK, 0, true);
$pool->on('workerStart', function (Swoole\Process\Pool $pool, int $id) {
    $sock = $pool->getProcess(0)->exportSocket();
    if ($id === 0) {
        echo 'worker 0 got: ' . $sock->recv() . "\n";
        $sock->send('ack');
    } else {
        $sock->send('from worker 1');
        echo 'worker 1 got: ' . $sock->recv() . "\n";
        $pool->shutdown();
    }
});
$pool->start();
echo "done\n";
?>
--EXPECT--
Swoole\Coroutine\Socket stream
HELLO CHILD
same object: true
a got: from b
bool(false)
worker 0 got: from worker 1
worker 1 got: ack
done
