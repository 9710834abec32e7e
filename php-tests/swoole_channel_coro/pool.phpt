--TEST--
swoole_channel_coro: a connection pool on a Channel of size N never lends more than N, and every borrower gets served
--DESCRIPTION--
The pattern of seed 001: fill a Channel(N) with N connection objects; each request pops one, uses it (here a
sleep), and pushes it back. 20 borrowers over a pool of 4 take about 5 rounds of 20 ms.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine;
use Swoole\Coroutine\Channel;

final class FakeConn
{
    public int $uses = 0;
    public function __construct(public int $id) {}
}

final class Pool
{
    private Channel $ch;
    public int $inUse = 0;
    public int $maxInUse = 0;

    public function __construct(public int $size)
    {
        $this->ch = new Channel($size);
        for ($i = 1; $i <= $size; $i++) {
            $this->ch->push(new FakeConn($i));
        }
    }

    public function get(float $timeout = -1): ?FakeConn
    {
        $c = $this->ch->pop($timeout);
        if ($c === false) {
            return null;
        }
        $this->inUse++;
        $this->maxInUse = max($this->maxInUse, $this->inUse);
        return $c;
    }

    public function put(FakeConn $c): void
    {
        $this->inUse--;
        $this->ch->push($c);
    }

    public function idle(): int
    {
        return $this->ch->length();
    }
}

$t = microtime(true);
Co\run(function () {
    $pool = new Pool(4);
    $wg = new Swoole\Coroutine\WaitGroup();
    $served = [];
    $conns = [];
    for ($i = 0; $i < 20; $i++) {
        $wg->add();
        go(function () use ($pool, $wg, $i, &$served, &$conns) {
            $c = $pool->get();
            $c->uses++;
            $conns[spl_object_id($c)] = $c;
            Coroutine::sleep(0.02);
            $served[] = $i;
            $pool->put($c);
            $wg->done();
        });
    }
    var_dump($pool->idle(), $pool->inUse);
    $wg->wait();
    var_dump(count($served), $pool->maxInUse, $pool->inUse, $pool->idle());
    var_dump(count($conns), array_sum(array_map(fn($c) => $c->uses, $conns)));
    // an empty pool with a timeout gives up
    $held = [];
    for ($i = 0; $i < 4; $i++) {
        $held[] = $pool->get();
    }
    var_dump($pool->get(0.05));
});
$el = microtime(true) - $t;
var_dump($el >= 0.095 && $el < 1.0);
?>
--EXPECT--
int(0)
int(4)
int(20)
int(4)
int(0)
int(4)
int(4)
int(20)
NULL
bool(true)
