--TEST--
swoole_server: on() with a callable that cannot be called warns with its name (Swoole\Server\Port::on() for port events, as Swoole)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
class Handler
{
    private function foo($req, $resp) {}
}
$s = new Swoole\Http\Server('127.0.0.1', rsw_free_port(), SWOOLE_BASE);
var_dump($s->on('request', [new Handler, 'foo']));
var_dump($s->on('start', 'no_such_function'));
var_dump($s->on('request', function ($req, $resp) {}));
?>
--EXPECTF--
Warning: Swoole\Server\Port::on(): function 'Handler::foo' is not callable in %s on line %d
bool(false)

Warning: Swoole\Server::on(): function 'no_such_function' is not callable in %s on line %d
bool(false)
bool(true)
