--TEST--
swoole_socket_coro: IP-level options converted as ext-sockets does (multicast join/leave/source ops on lo, IP_MULTICAST_IF by index, TTL range, SO_BINDTODEVICE, IPV6_PKTINFO, SO_LINGER keys)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Coroutine\Socket;
Co\run(function () {
    $lo = 'lo';
    $group = '224.0.0.79';
    $r = new Socket(AF_INET, SOCK_DGRAM, SOL_UDP);
    $r->bind('0.0.0.0', 0);
    $port = $r->getsockname()['port'];
    var_dump($r->setOption(IPPROTO_IP, MCAST_JOIN_GROUP, ['group' => $group, 'interface' => $lo]));
    $s = new Socket(AF_INET, SOCK_DGRAM, SOL_UDP);
    $s->bind('127.0.0.1', 0);
    var_dump($s->setOption(IPPROTO_IP, IP_MULTICAST_IF, 1), $s->getOption(IPPROTO_IP, IP_MULTICAST_IF));
    var_dump($s->setOption(IPPROTO_IP, IP_MULTICAST_LOOP, 256), $s->getOption(IPPROTO_IP, IP_MULTICAST_LOOP));
    $s->sendto($group, $port, 'm1');
    var_dump($r->recvfrom($peer, 1));
    // Blocking the only source: the next group packet does not arrive, a unicast one does.
    var_dump($r->setOption(IPPROTO_IP, MCAST_BLOCK_SOURCE, ['group' => $group, 'interface' => $lo, 'source' => '127.0.0.1']));
    $s->sendto($group, $port, 'blocked');
    $s->sendto('127.0.0.1', $port, 'u1');
    var_dump($r->recvfrom($peer, 1));
    var_dump($r->setOption(IPPROTO_IP, MCAST_UNBLOCK_SOURCE, ['group' => $group, 'interface' => $lo, 'source' => '127.0.0.1']));
    var_dump($r->setOption(IPPROTO_IP, MCAST_LEAVE_GROUP, ['group' => $group, 'interface' => $lo]));
    $s->sendto($group, $port, 'after-leave');
    $s->sendto('127.0.0.1', $port, 'u2');
    var_dump($r->recvfrom($peer, 1));
    // Leaving a group not joined: the kernel's error, as a warning.
    var_dump(@$r->setOption(IPPROTO_IP, MCAST_LEAVE_GROUP, ['group' => $group]), $r->errCode === SOCKET_EADDRNOTAVAIL);
    var_dump($r->setOption(IPPROTO_IP, MCAST_JOIN_GROUP, ['interface' => 0]));
    var_dump($s->setOption(IPPROTO_IP, IP_MULTICAST_TTL, 256), $s->setOption(IPPROTO_IP, IP_MULTICAST_TTL, '7'), $s->getOption(IPPROTO_IP, IP_MULTICAST_TTL));

    $t = new Socket(AF_INET, SOCK_STREAM, SOL_TCP);
    var_dump($t->setOption(SOL_SOCKET, SO_BINDTODEVICE, 'lo'));
    var_dump($t->setOption(SOL_SOCKET, SO_BINDTODEVICE, 'nosuchdev0'));
    var_dump($t->setOption(SOL_SOCKET, SO_LINGER, ['l_onoff' => 1]));
    var_dump($t->setOption(SOL_SOCKET, SO_LINGER, ['l_onoff' => 1, 'l_linger' => 3]), $t->getOption(SOL_SOCKET, SO_LINGER)['l_linger']);

    $six = new Socket(AF_INET6, SOCK_DGRAM, SOL_UDP);
    var_dump($six->setOption(IPPROTO_IPV6, IPV6_PKTINFO, []));
    var_dump($six->setOption(IPPROTO_IPV6, IPV6_PKTINFO, ['addr' => '::1', 'ifindex' => 0]));
    var_dump($six->setOption(IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 300));
});
?>
--EXPECTF--
bool(true)
bool(true)
int(1)
bool(true)
int(1)
string(2) "m1"
bool(true)
string(2) "u1"
bool(true)
bool(true)
string(2) "u2"
bool(false)
bool(true)

Warning: Swoole\Coroutine\Socket::setOption(): no key "group" passed in optval in %s on line %d
bool(false)

Warning: Swoole\Coroutine\Socket::setOption(): Expected a value between 0 and 255 in %s on line %d
bool(false)
bool(true)
int(7)
bool(true)

Warning: Swoole\Coroutine\Socket::setOption(): setsockopt(%d) failed, Error: No such device[19] in %s on line %d
bool(false)

Warning: Swoole\Coroutine\Socket::setOption(): no key "l_linger" passed in optval in %s on line %d
bool(false)
bool(true)
int(3)

Warning: Swoole\Coroutine\Socket::setOption(): error converting user data (path: in6_pktinfo): The key 'addr' is required in %s on line %d
bool(false)
bool(true)

Warning: Swoole\Coroutine\Socket::setOption(): Expected a value between -1 and 255 in %s on line %d
bool(false)
