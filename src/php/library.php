<?php
// src/php/library.php: the parts of the Swoole API that are plain PHP on top of the native
// classes, compiled at request start (Swoole ships such a library too; this one is our own).

namespace Swoole\Coroutine;

use Swoole\Coroutine;
use Swoole\Timer;

/** Waits until every other holder of the barrier has dropped it. */
class Barrier
{
    private int $waiter = -1;
    private int $timer = -1;
    /** Waiters whose barrier was released before they could yield. */
    private static array $released = [];

    public static function make(): self
    {
        return new self();
    }

    /** Blocks the calling coroutine until $barrier has no other reference (or $timeout). */
    public static function wait(Barrier &$barrier, float $timeout = -1): void
    {
        if ($barrier->waiter !== -1) {
            throw new \Swoole\Error('The barrier is waiting, cannot wait again.');
        }
        $cid = Coroutine::getCid();
        $barrier->waiter = $cid;
        if ($timeout > 0) {
            $barrier->timer = Timer::after((int) max(1, $timeout * 1000), static function () use ($cid) {
                Coroutine::resume($cid);
            });
        }
        // Dropping our reference: when the last other holder lets go, the
        // destructor resumes us.
        $barrier = null;
        if (isset(self::$released[$cid])) {
            unset(self::$released[$cid]);
            return;
        }
        Coroutine::yield();
        unset(self::$released[$cid]);
    }

    public function __destruct()
    {
        if ($this->timer !== -1) {
            Timer::clear($this->timer);
        }
        if ($this->waiter === -1) {
            return;
        }
        if ($this->waiter === Coroutine::getCid()) {
            self::$released[$this->waiter] = true;
        } else {
            Coroutine::resume($this->waiter);
        }
    }
}
