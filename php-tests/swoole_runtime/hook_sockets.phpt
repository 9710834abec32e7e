--TEST--
swoole_runtime: SWOOLE_HOOK_SOCKETS: in a coroutine socket_create()/socket_create_listen()/socket_create_pair() make Swoole\Coroutine\Socket objects and the socket_* calls on them suspend only their coroutine (TCP accept/read/write, UDP sendto/recvfrom, a socket pair, SO_RCVTIMEO and set_nonblock giving SOCKET_ETIMEDOUT, last_error/clear_error, by-reference outputs); outside a coroutine, and after the hook is removed, ext-sockets' own \Socket
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; if (!extension_loaded('sockets')) die('skip sockets'); ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

Swoole\Runtime::setHookFlags(SWOOLE_HOOK_SOCKETS);
echo 'flag kept: ', var_export((Swoole\Runtime::getHookFlags() & SWOOLE_HOOK_SOCKETS) !== 0, true), "\n";
echo 'outside a coroutine: ', get_class(socket_create(AF_INET, SOCK_STREAM, SOL_TCP)), "\n";

Co\run(function () {
    $l = socket_create_listen(0);
    echo 'listen: ', get_class($l), "\n";
    if (!$l instanceof Swoole\Coroutine\Socket) {
        echo "not hooked, stop\n";
        return;
    }
    var_dump(socket_getsockname($l, $addr, $port), $addr, $port > 0);
    // A ticker proves the process keeps running while the sockets wait.
    $ticks = 0;
    $done = false;
    go(function () use (&$ticks, &$done) {
        while (!$done) {
            Co::sleep(0.01);
            $ticks++;
        }
    });
    go(function () use ($port) {
        $c = socket_create(AF_INET, SOCK_STREAM, SOL_TCP);
        var_dump(socket_connect($c, '127.0.0.1', $port));
        Co::sleep(0.1);
        socket_write($c, "ping\n");
        $n = socket_recv($c, $buf, 100, 0);
        echo "client got $n: $buf\n";
        socket_close($c);
    });
    $t = microtime(true);
    $s = socket_accept($l);
    echo 'accepted: ', get_class($s), "\n";
    $line = socket_read($s, 100, PHP_NORMAL_READ);
    echo 'server read: ', trim($line), ' after >=0.09 s: ', var_export(microtime(true) - $t >= 0.09, true), "\n";
    var_dump(socket_getpeername($s, $paddr, $pport), $paddr, $pport > 0);
    socket_write($s, 'pong');
    Co::sleep(0.05);
    echo 'EOF read: ', var_export(socket_read($s, 100), true), "\n";
    socket_close($s);
    socket_close($l);
    $done = true;
    echo 'ticker ran meanwhile: ', var_export($ticks >= 5, true), "\n";

    // UDP, by-reference address and port.
    $u = socket_create(AF_INET, SOCK_DGRAM, SOL_UDP);
    var_dump(socket_bind($u, '127.0.0.1', 0));
    socket_getsockname($u, $ua, $up);
    go(function () use ($up) {
        $c = socket_create(AF_INET, SOCK_DGRAM, SOL_UDP);
        socket_sendto($c, 'datagram', 8, 0, '127.0.0.1', $up);
        socket_recvfrom($c, $reply, 100, 0, $from, $fromPort);
        echo "udp reply: $reply from port ok: ", var_export($fromPort === $up, true), "\n";
    });
    $n = socket_recvfrom($u, $data, 100, 0, $from, $fromPort);
    echo "udp got $n: $data from $from\n";
    socket_sendto($u, 'back', 4, 0, $from, $fromPort);
    Co::sleep(0.05);

    // A pair, read by two coroutines.
    var_dump(socket_create_pair(AF_UNIX, SOCK_STREAM, 0, $pair), get_class($pair[0]));
    go(function () use ($pair) {
        $got = socket_read($pair[1], 100);
        echo "pair[1] read: $got\n";
        socket_write($pair[1], 'reply');
    });
    socket_write($pair[0], 'hello pair');
    $got = socket_read($pair[0], 100);
    echo "pair[0] read: $got\n";

    // Timeouts and errors.
    socket_set_option($pair[0], SOL_SOCKET, SO_RCVTIMEO, ['sec' => 0, 'usec' => 50000]);
    var_dump(socket_get_option($pair[0], SOL_SOCKET, SO_RCVTIMEO));
    $t = microtime(true);
    var_dump(socket_recv($pair[0], $buf, 10, 0), socket_last_error($pair[0]) === SOCKET_ETIMEDOUT);
    echo 'waited about 50 ms: ', var_export(microtime(true) - $t > 0.04 && microtime(true) - $t < 0.5, true), "\n";
    socket_set_nonblock($pair[1]);
    var_dump(socket_read($pair[1], 10), socket_last_error($pair[1]) === SOCKET_ETIMEDOUT);
    socket_set_block($pair[1]);
    $free = socket_create_listen(0);
    socket_getsockname($free, $_, $freePort);
    socket_close($free);
    $r = socket_create(AF_INET, SOCK_STREAM, SOL_TCP);
    var_dump(socket_connect($r, '127.0.0.1', $freePort));
    var_dump(socket_last_error() === SOCKET_ECONNREFUSED, socket_last_error($r) === SOCKET_ECONNREFUSED);
    socket_clear_error();
    var_dump(socket_last_error(), socket_last_error($r) === SOCKET_ECONNREFUSED);
    socket_clear_error($r);
    var_dump(socket_last_error($r));
    try {
        socket_connect($r);
    } catch (ArgumentCountError $e) {
        echo get_class($e), "\n";
    }
});

Swoole\Runtime::setHookFlags(0);
Co\run(function () {
    echo 'hook removed, in a coroutine: ', get_class(socket_create(AF_INET, SOCK_STREAM, SOL_TCP)), "\n";
});
?>
--EXPECT--
flag kept: true
outside a coroutine: Socket
listen: Swoole\Coroutine\Socket
bool(true)
string(7) "0.0.0.0"
bool(true)
bool(true)
accepted: Swoole\Coroutine\Socket
server read: ping after >=0.09 s: true
bool(true)
string(9) "127.0.0.1"
bool(true)
client got 4: pong
EOF read: ''
ticker ran meanwhile: true
bool(true)
udp got 8: datagram from 127.0.0.1
udp reply: back from port ok: true
bool(true)
string(23) "Swoole\Coroutine\Socket"
pair[1] read: hello pair
pair[0] read: reply
array(2) {
  ["sec"]=>
  int(0)
  ["usec"]=>
  int(50000)
}
bool(false)
bool(true)
waited about 50 ms: true
bool(false)
bool(true)
bool(false)
bool(true)
bool(true)
int(0)
bool(true)
int(0)
ArgumentCountError
hook removed, in a coroutine: Socket
