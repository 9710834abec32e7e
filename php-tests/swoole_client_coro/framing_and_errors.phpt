--TEST--
swoole_client_coro: open_eof_split and open_length_check packets, refused connect (errCode 111), no connection (5001), exportSocket
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Client;
Co\run(function () {
    $srv = new Co\Socket(AF_INET, SOCK_STREAM, 0);
    $srv->bind('127.0.0.1', 0);
    $srv->listen();
    $port = $srv->getsockname()['port'];
    go(function () use ($srv) {
        $c = $srv->accept();
        $c->recv();
        $c->sendAll("a\r\nbb\r\n" . pack('n', 3) . 'xyz');
        Co::sleep(0.1);
        $c->close();
    });
    $cli = new Client(SWOOLE_SOCK_TCP);
    $cli->set(['open_eof_split' => true, 'package_eof' => "\r\n"]);
    var_dump($cli->connect('127.0.0.1', $port, 1), $cli->isConnected());
    var_dump($cli->send('go'));
    echo json_encode([$cli->recv(), $cli->recv()]), "\n";
    $cli->set(['open_eof_split' => false, 'open_length_check' => true, 'package_length_type' => 'n',
        'package_length_offset' => 0, 'package_body_offset' => 2]);
    var_dump(substr($cli->recv(), 2));
    var_dump($cli->recv(2));
    var_dump($cli->exportSocket() instanceof Co\Socket, $cli->getsockname()['host']);
    var_dump($cli->close(), $cli->isConnected());

    $bad = new Client(SWOOLE_SOCK_TCP);
    var_dump($bad->connect('127.0.0.1', 1, 1), $bad->errCode, $bad->errMsg);
    var_dump($bad->send('x'), $bad->errCode === SWOOLE_ERROR_CLIENT_NO_CONNECTION);

    $u = new Client(SWOOLE_SOCK_UDP);
    $peer = new Co\Socket(AF_INET, SOCK_DGRAM, 0);
    $peer->bind('127.0.0.1', 0);
    var_dump($u->connect('127.0.0.1', $peer->getsockname()['port']));
    $u->send('dgram');
    $from = null;
    var_dump($peer->recvfrom($from, 1));
});
var_dump((new Client(SWOOLE_SOCK_TCP | SWOOLE_SSL))->type === (SWOOLE_SOCK_TCP | SWOOLE_SSL));
?>
--EXPECT--
bool(true)
bool(true)
int(2)
["a\r\n","bb\r\n"]
string(3) "xyz"
string(0) ""
bool(true)
string(9) "127.0.0.1"
bool(true)
bool(false)
bool(false)
int(111)
string(18) "Connection refused"
bool(false)
bool(true)
bool(true)
string(5) "dgram"
bool(true)
