--TEST--
swoole_socket_coro: UDP sendto/recvfrom, AF_UNIX stream, peek and checkLiveness, import() of a PHP stream
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Socket;
Co\run(function () {
    $a = new Socket(AF_INET, SOCK_DGRAM, 0);
    $a->bind('127.0.0.1', 0);
    $port = $a->getsockname()['port'];
    $b = new Socket(AF_INET, SOCK_DGRAM, 0);
    go(function () use ($b, $port) { Co::sleep(0.02); var_dump($b->sendto('127.0.0.1', $port, 'ping')); });
    $peer = null;
    var_dump($a->recvfrom($peer, 2), $peer['address'], $peer['port'] > 0);

    $path = sys_get_temp_dir() . '/rsw_sock_' . getmypid() . '.sock';
    @unlink($path);
    $srv = new Socket(AF_UNIX, SOCK_STREAM, 0);
    var_dump($srv->bind($path), $srv->listen());
    go(function () use ($srv) {
        $c = $srv->accept();
        $c->send('data');
        Co::sleep(0.1);
        $c->close();
    });
    $cli = new Socket(AF_UNIX, SOCK_STREAM, 0);
    var_dump($cli->connect($path));
    Co::sleep(0.03);
    var_dump($cli->peek(), $cli->checkLiveness(), $cli->recv());
    Co::sleep(0.15);
    var_dump($cli->checkLiveness());
    unlink($path);

    [$x, $y] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, 0);
    $s = Socket::import($x);
    var_dump($s instanceof Socket, $s->type === SOCK_STREAM);
    go(function () use ($y) { Co::sleep(0.02); fwrite($y, 'via stream'); });
    var_dump($s->recv(100, 1));
});
?>
--EXPECT--
int(4)
string(4) "ping"
string(9) "127.0.0.1"
bool(true)
bool(true)
bool(true)
bool(true)
string(4) "data"
bool(true)
string(4) "data"
bool(false)
bool(true)
bool(true)
string(10) "via stream"
