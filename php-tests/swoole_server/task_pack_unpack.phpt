--TEST--
swoole_server: Server\Task::pack()/unpack() round-trip strings and arrays (small inline, large through a temporary file that unpack removes); the packet carries Swoole's header and flags
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Server\Task;

$small = random_bytes(100);
$p = Task::pack($small);
var_dump(strlen($p) === 40 + 100);
$h = unpack('qid/Qmsg/Vlen/sreactor/Ctype/Cflags/vserver_fd/vext/Vres/etime', $p);
var_dump($h['len'], $h['type'], $h['ext'], abs($h['time'] - microtime(true)) < 5);
var_dump(Task::unpack($p) === $small);

$arr = ['a' => 1, 'b' => [true, null, 1.5], 'c' => str_repeat('x', 50)];
$p = Task::pack($arr);
var_dump(unpack('v', $p, 26)[1]); // NONBLOCK | NOREPLY | SERIALIZE
var_dump(Task::unpack($p) === $arr);

$big = random_bytes(3 * 1024 * 1024);
$p = Task::pack($big);
var_dump(strlen($p), unpack('v', $p, 26)[1]);
$file = rtrim(substr($p, 48), "\0");
var_dump(str_starts_with($file, '/tmp/swoole.task.'), filesize($file));
var_dump(Task::unpack($p) === $big, file_exists($file));

$bigArr = ['data' => random_bytes(20000), 'n' => 7];
var_dump(Task::unpack(Task::pack($bigArr)) === $bigArr);

// Ids count up, as Swoole's task ids do.
$a = unpack('q', Task::pack('x'))[1];
$b = unpack('q', Task::pack('y'))[1];
var_dump($b === $a + 1);

var_dump(Task::unpack('short'), Task::unpack(str_repeat("\0", 16) . pack('V', 999) . str_repeat("\0", 20)));
?>
--EXPECT--
bool(true)
int(100)
int(8)
int(132)
bool(true)
bool(true)
int(134)
bool(true)
int(304)
int(133)
bool(true)
int(3145728)
bool(true)
bool(false)
bool(true)
bool(true)
bool(false)
bool(false)
