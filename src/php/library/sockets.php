<?php
//! The PHP half of SWOOLE_HOOK_SOCKETS (see src/php/hook_sockets.rs):
//! ext-sockets' socket_* functions over Swoole\Coroutine\Socket, so that
//! only the calling coroutine waits. As in Swoole, a hooked socket_create()
//! in a coroutine returns a Swoole\Coroutine\Socket; the hooked socket_*
//! functions route here when their socket is one (a plain \Socket keeps
//! ext-sockets' own code).

namespace Rswoole\Sockets {
    use Swoole\Coroutine\Socket;

    /** @internal per-socket state the functions keep beside the object. */
    final class State
    {
        /** The last error of any hooked call (socket_last_error()). */
        public static int $last = 0;
        /** @var \WeakMap<Socket, bool> sockets set non-blocking. */
        public static ?\WeakMap $nonblock = null;

        public static function nonblocking(Socket $s): bool
        {
            return self::$nonblock !== null && isset(self::$nonblock[$s]);
        }

        public static function setNonblocking(Socket $s, bool $on): void
        {
            self::$nonblock ??= new \WeakMap();
            if ($on) {
                self::$nonblock[$s] = true;
            } else {
                unset(self::$nonblock[$s]);
            }
        }

        /** The per-call timeout: a non-blocking socket does not wait. */
        public static function timeout(Socket $s): float
        {
            return self::nonblocking($s) ? 0.001 : 0.0;
        }

        /** getpeername()/getsockname(): `$r` (an address array or false) into the by-reference
         *  arguments; the port only when the caller passed one. */
        public static function address(Socket $s, $r, &$address, &$port, bool $withPort): bool
        {
            if (!is_array($r)) {
                return self::fail($s);
            }
            $address = $r['address'];
            if ($withPort) {
                $port = $r['port'];
            }
            return true;
        }

        /** Records a failed call's error and answers false. */
        public static function fail(Socket $s): bool
        {
            self::$last = $s->errCode;
            return false;
        }

        /** `$r` unchanged; a failure records the socket's error. */
        public static function result(Socket $s, mixed $r): mixed
        {
            if ($r === false) {
                self::$last = $s->errCode;
            }
            return $r;
        }
    }
}

namespace {
    use Rswoole\Sockets\State;
    use Swoole\Coroutine\Socket;

    function swoole_socket_create(int $domain, int $type, int $protocol)
    {
        try {
            return new Socket($domain, $type, $protocol);
        } catch (\Throwable $e) {
            State::$last = (int) $e->getCode();
            trigger_error('socket_create(): Unable to create socket [' . $e->getCode() . ']: ' . swoole_strerror((int) $e->getCode()), E_USER_WARNING);
            return false;
        }
    }

    function swoole_socket_create_listen(int $port, int $backlog = 128)
    {
        $s = new Socket(AF_INET, SOCK_STREAM, IPPROTO_IP);
        $s->setOption(SOL_SOCKET, SO_REUSEADDR, 1);
        if (!$s->bind('0.0.0.0', $port) || !$s->listen($backlog)) {
            State::$last = $s->errCode;
            $s->close();
            return false;
        }
        return $s;
    }

    function swoole_socket_create_pair(int $domain, int $type, int $protocol, &$pair)
    {
        $streams = @stream_socket_pair($domain, $type, $protocol);
        if ($streams === false) {
            State::$last = SOCKET_EINVAL;
            return false;
        }
        $a = Socket::import($streams[0]);
        $b = Socket::import($streams[1]);
        fclose($streams[0]);
        fclose($streams[1]);
        if (!$a || !$b) {
            return false;
        }
        $pair = [$a, $b];
        return true;
    }

    function swoole_socket_connect(Socket $socket, string $address, int $port = 0)
    {
        return State::result($socket, $socket->connect($address, $port));
    }

    function swoole_socket_read(Socket $socket, int $length, int $type = PHP_BINARY_READ)
    {
        $t = State::timeout($socket);
        $r = $type === PHP_NORMAL_READ ? $socket->recvLine($length, $t) : $socket->recv($length, $t);
        return State::result($socket, $r);
    }

    function swoole_socket_write(Socket $socket, string $buffer, int $length = 0)
    {
        // A length of 0 (or less) writes the whole string.
        if ($length > 0 && $length < strlen($buffer)) {
            $buffer = substr($buffer, 0, $length);
        }
        return State::result($socket, $socket->send($buffer, State::timeout($socket)));
    }

    function swoole_socket_send(Socket $socket, string $buffer, int $length, int $flags)
    {
        // As Swoole: a length of 0 (or less) sends the whole string.
        if ($length > 0 && $length < strlen($buffer)) {
            $buffer = substr($buffer, 0, $length);
        }
        return State::result($socket, $socket->send($buffer, State::timeout($socket)));
    }

    function swoole_socket_recv(Socket $socket, &$buffer, int $length, int $flags)
    {
        $t = State::timeout($socket);
        $r = ($flags & MSG_WAITALL) ? $socket->recvAll($length, $t) : $socket->recv($length, $t);
        if ($r === false) {
            $buffer = null;
            return State::fail($socket);
        }
        $buffer = $r === '' ? null : $r;
        return strlen($r);
    }

    function swoole_socket_sendto(Socket $socket, string $buffer, int $length, int $flags, string $addr, int $port = 0)
    {
        // As Swoole: a length of 0 (or less) sends the whole string.
        if ($length > 0 && $length < strlen($buffer)) {
            $buffer = substr($buffer, 0, $length);
        }
        return State::result($socket, $socket->sendto($addr, $port, $buffer));
    }

    function swoole_socket_recvfrom(Socket $socket, &$buffer, int $length, int $flags, &$name, &$port = null)
    {
        $peer = null;
        $r = $socket->recvfrom($peer, State::timeout($socket));
        if ($r === false) {
            return State::fail($socket);
        }
        if (strlen($r) > $length) {
            $r = substr($r, 0, $length);
        }
        $buffer = $r;
        if (is_array($peer)) {
            $name = $peer['address'] ?? null;
            if (isset($peer['port'])) {
                $port = $peer['port'];
            }
        }
        return strlen($r);
    }

    function swoole_socket_bind(Socket $socket, string $address, int $port = 0): bool
    {
        return State::result($socket, $socket->bind($address, $port));
    }

    function swoole_socket_listen(Socket $socket, int $backlog = 0): bool
    {
        return State::result($socket, $socket->listen($backlog));
    }

    function swoole_socket_accept(Socket $socket)
    {
        return State::result($socket, $socket->accept(State::timeout($socket)));
    }

    function swoole_socket_getpeername(Socket $socket, &$address, &$port = null)
    {
        return State::address($socket, $socket->getpeername(), $address, $port, func_num_args() > 2);
    }

    function swoole_socket_getsockname(Socket $socket, &$address, &$port = null)
    {
        return State::address($socket, $socket->getsockname(), $address, $port, func_num_args() > 2);
    }

    function swoole_socket_get_option(Socket $socket, int $level, int $optname)
    {
        return State::result($socket, $socket->getOption($level, $optname));
    }

    function swoole_socket_getopt(Socket $socket, int $level, int $optname)
    {
        return swoole_socket_get_option($socket, $level, $optname);
    }

    function swoole_socket_set_option(Socket $socket, int $level, int $optname, $optval): bool
    {
        return State::result($socket, $socket->setOption($level, $optname, $optval));
    }

    function swoole_socket_setopt(Socket $socket, int $level, int $optname, $optval): bool
    {
        return swoole_socket_set_option($socket, $level, $optname, $optval);
    }

    function swoole_socket_set_block(Socket $socket)
    {
        State::setNonblocking($socket, false);
        return true;
    }

    function swoole_socket_set_nonblock(Socket $socket)
    {
        State::setNonblocking($socket, true);
        return true;
    }

    function swoole_socket_shutdown(Socket $socket, int $how = 2): bool
    {
        return State::result($socket, $socket->shutdown($how));
    }

    function swoole_socket_close(Socket $socket)
    {
        $socket->close();
    }

    function swoole_socket_last_error(?Socket $socket = null): int
    {
        return $socket === null ? State::$last : $socket->errCode;
    }

    function swoole_socket_clear_error(?Socket $socket = null)
    {
        if ($socket === null) {
            State::$last = 0;
        } else {
            $socket->errCode = 0;
        }
    }

    function swoole_socket_import_stream(mixed $stream): Socket|false
    {
        return Socket::import($stream);
    }
}
