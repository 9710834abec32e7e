--TEST--
swoole_socket_coro: import() takes only socket streams (PHP's TypeError and cast warning otherwise), close() of an imported socket ends the connection for the peer; shutdown() keeps which halves are shut
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Socket;
Co\run(function () {
    [$a, $b] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, 0);
    $s = Socket::import($a);
    var_dump($s instanceof Socket, $s->send('via import'));
    var_dump($s->close());
    // The peer sees the end although $a itself is still open.
    var_dump(stream_get_contents($b));

    var_dump(Socket::import(fopen(__FILE__, 'r')));
    try {
        Socket::import(new stdClass);
    } catch (TypeError $e) {
        echo $e->getMessage(), "\n";
    }
    $c = fopen('php://memory', 'r');
    fclose($c);
    try {
        Socket::import($c);
    } catch (TypeError $e) {
        echo $e->getMessage(), "\n";
    }

    $srv = new Socket(AF_INET, SOCK_STREAM, 0);
    $srv->bind('127.0.0.1', 0);
    $srv->listen();
    $port = $srv->getsockname()['port'];
    go(function () use ($srv) {
        $conn = $srv->accept();
        $conn->recv();
        $conn->close();
    });
    $cli = new Socket(AF_INET, SOCK_STREAM, 0);
    $cli->connect('127.0.0.1', $port);
    $cli->send('x');
    var_dump($cli->shutdown(STREAM_SHUT_WR));
    var_dump($cli->shutdown(STREAM_SHUT_WR), $cli->errCode === SOCKET_ENOTCONN);
    Co::sleep(0.05);
    var_dump($cli->shutdown(STREAM_SHUT_RD));
    var_dump($cli->shutdown(), $cli->errCode === SOCKET_ENOTCONN);
});
?>
--EXPECTF--
bool(true)
int(10)
bool(true)
string(10) "via import"

Warning: Swoole\Coroutine\Socket::import(): Cannot represent a stream of type STDIO as a Socket Descriptor in %s on line %d
bool(false)
Swoole\Coroutine\Socket::import(): Argument #1 ($stream) must be of type resource, stdClass given
Swoole\Coroutine\Socket::import(): supplied resource is not a valid stream resource
bool(true)
bool(false)
bool(true)
bool(true)
bool(false)
bool(true)
