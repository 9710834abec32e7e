--TEST--
swoole_lock: Swoole 6.2.2 API: lock($operation, $timeout), unlock(), errCode, constants, bad type
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Lock;

var_dump(SWOOLE_MUTEX, SWOOLE_RWLOCK, SWOOLE_SPINLOCK, Lock::MUTEX, Lock::RWLOCK, Lock::SPINLOCK);
var_dump(method_exists(Lock::class, 'trylock'), method_exists(Lock::class, 'lockwait'));

foreach ([SWOOLE_MUTEX, SWOOLE_SPINLOCK] as $type) {
    $l = new Lock($type);
    var_dump($l->errCode, $l->lock());
    var_dump($l->lock(LOCK_EX | LOCK_NB), $l->errCode === SOCKET_EBUSY);
    $t = microtime(true);
    var_dump($l->lock(LOCK_EX, 0.2), $l->errCode === SOCKET_ETIMEDOUT, microtime(true) - $t >= 0.19);
    var_dump($l->unlock(), $l->lock(LOCK_EX | LOCK_NB), $l->unlock());
}

$rw = new Lock(SWOOLE_RWLOCK);
var_dump($rw->lock(LOCK_SH), $rw->lock(LOCK_SH | LOCK_NB), $rw->lock(LOCK_EX | LOCK_NB), $rw->errCode === SOCKET_EBUSY);
var_dump($rw->unlock(), $rw->unlock(), $rw->lock(LOCK_EX | LOCK_NB), $rw->lock(LOCK_SH | LOCK_NB), $rw->unlock());

try {
    new Lock(42);
} catch (Swoole\Exception $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
int(3)
int(1)
int(5)
int(3)
int(1)
int(5)
bool(false)
bool(false)
int(0)
bool(true)
bool(false)
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
bool(true)
bool(false)
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
lock type[42] is not support
