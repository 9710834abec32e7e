<?php
// src/php/library.php: the parts of the Swoole API that are plain PHP on top of the native
// classes, compiled at request start (Swoole ships such a library too; this one is our own).

namespace Swoole\Coroutine;

use Swoole\Coroutine;
use Swoole\Timer;

/** Waits until every other holder of the barrier has dropped it. */
final class Barrier
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

namespace Swoole\Process;

/**
 * Runs a set of callables, each in its own worker process of a Swoole\Process\Pool
 * (restarted when it exits); `start()` returns when the pool stops.
 */
class Manager
{
    protected $pool;
    protected $ipcType;
    protected $msgQueueKey;
    /** @var array<int, array{0: callable, 1: bool}> one entry per worker id */
    protected $startFuncMap = [];

    public function __construct(int $ipcType = SWOOLE_IPC_NONE, int $msgQueueKey = 0)
    {
        $this->ipcType = $ipcType;
        $this->msgQueueKey = $msgQueueKey;
    }

    /** One worker running $func($pool, $workerId), in a coroutine when $enableCoroutine. */
    public function add(callable $func, bool $enableCoroutine = false): self
    {
        return $this->addBatch(1, $func, $enableCoroutine);
    }

    /** $workerNum workers running $func. */
    public function addBatch(int $workerNum, callable $func, bool $enableCoroutine = false): self
    {
        for ($n = $workerNum; $n > 0; $n--) {
            $this->startFuncMap[] = [$func, $enableCoroutine];
        }
        return $this;
    }

    public function start(): void
    {
        $jobs = $this->startFuncMap;
        $this->pool = new Pool(count($jobs), $this->ipcType, $this->msgQueueKey, false);
        $this->pool->on('workerStart', static function (Pool $pool, int $workerId) use ($jobs): void {
            [$func, $coroutine] = $jobs[$workerId];
            if (!$coroutine) {
                $func($pool, $workerId);
                return;
            }
            \Swoole\Coroutine\run($func, $pool, $workerId);
        });
        $this->pool->start();
    }

    public function setIPCType(int $ipcType): self
    {
        $this->ipcType = $ipcType;
        return $this;
    }

    public function getIPCType(): int
    {
        return $this->ipcType;
    }

    public function setMsgQueueKey(int $msgQueueKey): self
    {
        $this->msgQueueKey = $msgQueueKey;
        return $this;
    }

    public function getMsgQueueKey(): int
    {
        return $this->msgQueueKey;
    }
}
