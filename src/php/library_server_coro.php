<?php
// src/php/library_server_coro.php: Swoole\Coroutine\Server and Server\Connection, plain PHP on top of
// Swoole\Coroutine\Socket (Swoole's own are PHP too); compiled at request start like library.php.

namespace Swoole\Coroutine;

class Server
{
    public $host = '';
    public $port = 0;
    public $type = AF_INET;
    public $fd = -1;
    public $errCode = 0;
    public $setting = [];
    protected $running = false;
    protected $fn;
    protected $socket;

    public function __construct(string $host, int $port = 0, bool $ssl = false, bool $reuse_port = false)
    {
        if (str_contains($host, '::')) {
            $this->type = AF_INET6;
        } elseif (str_starts_with($host, 'unix:/')) {
            $host = substr($host, 5);
            $this->type = AF_UNIX;
        } else {
            $this->type = AF_INET;
        }
        $this->host = $host;
        $socket = new Socket($this->type, SOCK_STREAM, 0);
        if ($reuse_port && defined('SO_REUSEPORT')) {
            $socket->setOption(SOL_SOCKET, SO_REUSEPORT, 1);
        }
        $socket->setOption(SOL_SOCKET, SO_REUSEADDR, 1);
        if (!$socket->bind($this->host, $port)) {
            throw new \Swoole\Exception($socket->errMsg, $socket->errCode);
        }
        if (!$socket->listen()) {
            throw new \Swoole\Exception($socket->errMsg, $socket->errCode);
        }
        $this->port = $socket->getsockname()['port'] ?? 0;
        $this->fd = $socket->fd;
        $this->socket = $socket;
        $this->setting['open_ssl'] = $ssl;
    }

    public function set(array $setting): void
    {
        $this->setting = array_merge($this->setting, $setting);
    }

    public function handle(callable $fn): void
    {
        $this->fn = $fn;
    }

    public function shutdown(): bool
    {
        $this->running = false;
        return $this->socket->cancel();
    }

    public function start(): bool
    {
        $this->running = true;
        if ($this->fn === null) {
            $this->errCode = SOCKET_EINVAL;
            return false;
        }
        $socket = $this->socket;
        if (!$socket->setProtocol($this->setting)) {
            $this->errCode = SOCKET_EINVAL;
            return false;
        }
        while ($this->running) {
            $conn = $socket->accept(-1);
            if ($conn) {
                $conn->setProtocol($this->setting);
                $fn = $this->fn;
                if (!empty($this->setting['open_ssl'])) {
                    // A TLS server: each connection's handshake runs in its own
                    // coroutine; a client that fails it is dropped unseen.
                    $fn = static function (Server\Connection $c) use ($fn) {
                        if ($c->exportSocket()->sslHandshake()) {
                            $fn($c);
                        } else {
                            $c->close();
                        }
                    };
                }
                if (\Swoole\Coroutine::create($fn, new Server\Connection($conn)) < 0) {
                    \Swoole\Coroutine::sleep(1);
                }
                continue;
            }
            $code = $socket->errCode;
            if ($code == SOCKET_EMFILE || $code == SOCKET_ENFILE) {
                \Swoole\Coroutine::sleep(1);
                continue;
            }
            if ($code == SOCKET_ETIMEDOUT) {
                continue;
            }
            if ($code == SOCKET_ECANCELED) {
                break;
            }
            $this->errCode = $code;
            trigger_error("accept failed, Error: {$socket->errMsg}[{$code}]", E_USER_WARNING);
            break;
        }
        return true;
    }
}

namespace Swoole\Coroutine\Server;

use Swoole\Coroutine\Socket;

class Connection
{
    protected $socket;

    public function __construct(Socket $conn)
    {
        $this->socket = $conn;
    }

    public function recv(float $timeout = 0)
    {
        return $this->socket->recvPacket($timeout);
    }

    public function send(string $data)
    {
        return $this->socket->sendAll($data);
    }

    public function close(): bool
    {
        return $this->socket->close();
    }

    public function exportSocket(): Socket
    {
        return $this->socket;
    }
}

namespace Swoole\Coroutine\Server;

if (SWOOLE_USE_SHORTNAME) {
    class_alias(\Swoole\Coroutine\Server::class, 'Co\Server');
    class_alias(Connection::class, 'Co\Server\Connection');
}

namespace Swoole\Coroutine;

/** Runs the coroutines added to it in a fresh event loop (`start()`), like `Co\run()` with several bodies. */
final class Scheduler
{
    private array $list = [];
    private ?array $options = null;

    public function add(callable $func, mixed ...$param): void
    {
        $this->list[] = [$func, $param];
    }

    public function parallel(int $n, callable $func, mixed ...$param): void
    {
        for ($i = 0; $i < $n; $i++) {
            $this->list[] = [$func, $param];
        }
    }

    public function set(array $settings): void
    {
        $this->options = array_merge($this->options ?? [], $settings);
    }

    public function getOptions(): ?array
    {
        return $this->options;
    }

    public function start(): bool
    {
        if (\Swoole\Coroutine::getCid() > 0) {
            throw new \Swoole\Error('eventLoop has already been created. unable to start Swoole\Coroutine\Scheduler');
        }
        if ($this->options !== null) {
            \Swoole\Coroutine::set($this->options);
        }
        $list = $this->list;
        $this->list = [];
        foreach ($list as [$func, $param]) {
            \Swoole\Coroutine::create($func, ...$param);
        }
        \Swoole\Event::wait();
        return true;
    }
}

if (SWOOLE_USE_SHORTNAME) {
    class_alias(Scheduler::class, 'Co\Scheduler');
}
