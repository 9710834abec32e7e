--TEST--
swoole_socket_coro: accept, recvLine, recvPacket (length framing), sendAll/recvAll, vectors and addresses over real TCP
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Socket;
Co\run(function () {
    $srv = new Socket(AF_INET, SOCK_STREAM, IPPROTO_IP);
    var_dump($srv->bind('127.0.0.1', 0), $srv->listen(8));
    $port = $srv->getsockname()['port'];
    go(function () use ($srv) {
        $c = $srv->accept();
        var_dump($c instanceof Co\Socket, $c->getpeername()['address']);
        var_dump($c->recvLine(), $c->recvLine());
        $c->setProtocol(['open_length_check' => true, 'package_length_type' => 'N',
            'package_length_offset' => 0, 'package_body_offset' => 4]);
        $p = $c->recvPacket();
        var_dump(substr($p, 4));
        var_dump($c->recvAll(100000) === str_repeat('z', 100000));
        var_dump($c->readVectorAll([3, 2]));
        $c->sendAll("bye");
        $c->close();
        var_dump($c->recv(), $c->errCode === SOCKET_EBADF);
    });
    $cli = new Socket(AF_INET, SOCK_STREAM, 0);
    var_dump($cli->connect('127.0.0.1', $port, 2));
    var_dump($cli->getpeername()['port'] === $port);
    // two lines in one write, then a frame split over two writes
    $cli->send("one\ntwo\n");
    $frame = pack('N', 5) . 'hello';
    $cli->send(substr($frame, 0, 3));
    Co::sleep(0.05);
    $cli->send(substr($frame, 3));
    var_dump($cli->sendAll(str_repeat('z', 100000)));
    var_dump($cli->writeVectorAll(['abc', 'de']));
    var_dump($cli->recv());
    var_dump($cli->recv());
});
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
string(9) "127.0.0.1"
string(4) "one
"
string(4) "two
"
int(100000)
int(5)
string(5) "hello"
bool(true)
array(2) {
  [0]=>
  string(3) "abc"
  [1]=>
  string(2) "de"
}
bool(false)
bool(true)
string(3) "bye"
string(0) ""
