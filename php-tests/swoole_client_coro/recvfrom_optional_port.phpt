--TEST--
swoole_client_coro: UDP recvfrom(): the &$port argument may be left out; given, it is filled with the sender's port
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
Co\run(function () {
    $srv = new Swoole\Coroutine\Socket(AF_INET, SOCK_DGRAM, 0);
    $srv->bind('127.0.0.1', 0);
    $port = $srv->getsockname()['port'];
    $cli = new Swoole\Coroutine\Client(SWOOLE_SOCK_UDP);
    $cli->set(['timeout' => 2]);
    $cli->sendto('127.0.0.1', $port, 'hello');
    $peer = null;
    $srv->recvfrom($peer, 2);
    $srv->sendto($peer['address'], $peer['port'], 'one');
    $srv->sendto($peer['address'], $peer['port'], 'two');
    var_dump($cli->recvfrom(1024, $addr), $addr);
    var_dump($cli->recvfrom(1024, $addr2, $p), $addr2, $p === $port);
});
?>
--EXPECT--
string(3) "one"
string(9) "127.0.0.1"
string(3) "two"
string(9) "127.0.0.1"
bool(true)
