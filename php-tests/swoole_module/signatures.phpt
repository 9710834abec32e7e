--TEST--
swoole_module: Reflection, named arguments and overrides see Swoole's parameter names, types and defaults
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
echo new ReflectionMethod(Swoole\Coroutine\Channel::class, 'push');
$task = new ReflectionMethod(Swoole\Server::class, 'task');
foreach ($task->getParameters() as $p) {
    echo $p->getName(), ': ', $p->getType(), $p->isOptional() ? ' = ' . var_export($p->getDefaultValue(), true) : '', "\n";
}
echo $task->getReturnType(), "\n";
echo (new ReflectionMethod(Swoole\Server::class, 'addlistener'))->getReturnType(), "\n";

// A subclass may override with Swoole's exact signatures (PHP checks them against the parent's).
class MyServer extends Swoole\Http\Server
{
    public function on(string $event_name, callable $callback): bool { return parent::on($event_name, $callback); }
    public function task(mixed $data, int $taskWorkerIndex = -1, ?callable $finishCallback = null): int|false { return false; }
}
echo get_parent_class(new MyServer('127.0.0.1', 0)), "\n";

// Named arguments use Swoole's parameter names.
Co\run(function () {
    $chan = new Swoole\Coroutine\Channel(size: 1);
    var_dump($chan->push(data: 'x', timeout: 0.1), $chan->pop(timeout: 0.1));
    var_dump(Swoole\Coroutine::getBackTrace(limit: 1)[0]['function'] ?? null);
});
?>
--EXPECT--
Method [ <internal:swoole> public method push ] {

  - Parameters [2] {
    Parameter #0 [ <required> mixed $data ]
    Parameter #1 [ <optional> float $timeout = -1 ]
  }
  - Return [ bool ]
}
data: mixed
taskWorkerIndex: int = -1
finishCallback: ?callable = NULL
int|false
Swoole\Server\Port|false
Swoole\Http\Server
bool(true)
string(1) "x"
string(12) "getBackTrace"
