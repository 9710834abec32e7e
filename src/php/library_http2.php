<?php
// src/php/library_http2.php: Swoole\Coroutine\Http2\Client (Co\Http2\Client), its Exception, Swoole\Http2\Request
// and Swoole\Http2\Response, plain PHP over the internal __h2_* functions of src/php/http2_client_coro.rs
// (the HTTP/2 protocol is the h2 crate's, in engine/http2_client.rs); compiled at request start like library.php.

namespace Swoole\Coroutine\Http2\Client;

class Exception extends \Swoole\Exception
{
}

namespace Swoole\Http2;

class Request
{
    public string $path = '/';
    public string $method = 'GET';
    public ?array $headers = null;
    public ?array $cookies = null;
    public string|array $data = '';
    public bool $pipeline = false;
    public bool $usePipelineRead = false;
}

class Response
{
    public int $streamId = 0;
    public int $errCode = 0;
    public int $statusCode = 0;
    public bool $pipeline = false;
    public ?array $headers = null;
    public ?array $set_cookie_headers = null;
    public ?array $cookies = null;
    public ?string $data = null;
}

namespace Swoole\Coroutine\Http2;

use Swoole\Coroutine\Socket;
use Swoole\Http2\Request;
use Swoole\Http2\Response;

class Client
{
    public int $errCode = 0;
    public string $errMsg = '';
    public int $sock = -1;
    public int $type = 0;
    public ?array $setting = null;
    public ?Socket $socket = null;
    public bool $connected = false;
    public ?string $host = null;
    public int $port = 0;
    public bool $ssl = false;
    public int $serverLastStreamId = 0;
    /** The connection's handle in http2_client_coro.rs (0: none). */
    private int $h = 0;

    public function __construct(string $host, int $port = 80, bool $open_ssl = false)
    {
        if ($host === '') {
            throw new Client\Exception('host is empty', SWOOLE_ERROR_INVALID_PARAMS);
        }
        $this->host = $host;
        $this->port = $port;
        $this->ssl = $open_ssl;
    }

    public function __destruct()
    {
        if ($this->h) {
            __h2_close($this->h);
            $this->h = 0;
        }
    }

    public function set(array $settings): bool
    {
        $this->setting = array_merge($this->setting ?? [], $settings);
        return true;
    }

    private function error(array $e): void
    {
        $this->errCode = $e[0];
        $this->errMsg = $e[1];
    }

    private function available(): bool
    {
        if ($this->h && $this->connected) {
            return true;
        }
        $this->error([SWOOLE_ERROR_CLIENT_NO_CONNECTION, 'Client no connection']);
        return false;
    }

    private function gone(): void
    {
        $this->h = 0;
        $this->connected = false;
        $this->socket = null;
    }

    public function connect(): bool
    {
        if ($this->h) {
            $this->error([106 /* EISCONN */, 'Transport endpoint is already connected']);
            return false;
        }
        $r = __h2_connect($this->host, $this->port, $this->ssl, $this->setting ?? []);
        if (\is_array($r)) {
            $this->error($r);
            return false;
        }
        $this->h = $r;
        $this->connected = true;
        return true;
    }

    public function stats(string $key = ''): int|array
    {
        $s = ($this->h ? __h2_stats($this->h) : null) ?? [
            'current_stream_id' => 1, 'last_stream_id' => 0,
            'local_settings' => [], 'remote_settings' => [], 'active_stream_num' => 0,
        ];
        return $key === '' ? $s : ($s[$key] ?? $s);
    }

    public function isStreamExist(int $stream_id): bool
    {
        if ($stream_id < 0 || !$this->h) {
            return false;
        }
        return __h2_exists($this->h, $stream_id);
    }

    private function timeout(string $name): float
    {
        $s = $this->setting ?? [];
        return (float) ($s[$name] ?? $s['timeout'] ?? 60);
    }

    public function send(Request $request): int|false
    {
        if (!$this->available()) {
            return false;
        }
        $headers = [];
        $authority = null;
        $typed = false;
        foreach ($request->headers ?? [] as $k => $v) {
            if (!\is_string($k) || $k === '' || $k[0] === ':' || $v === null) {
                continue;
            }
            if (strcasecmp($k, 'host') === 0) {
                $authority = (string) $v;
                continue;
            }
            if (strcasecmp($k, 'content-type') === 0) {
                $typed = true;
            }
            $headers[] = [$k, (string) $v];
        }
        foreach ($request->cookies ?? [] as $k => $v) {
            if (!\is_string($k) || $v === null) {
                continue;
            }
            $headers[] = ['cookie', $k . '=' . urlencode((string) $v)];
        }
        $data = $request->data;
        if (\is_array($data)) {
            $data = http_build_query($data);
            if (!$typed) {
                $headers[] = ['content-type', 'application/x-www-form-urlencoded'];
            }
        }
        if ($authority === null) {
            $default = $this->ssl ? 443 : 80;
            // An IPv6 literal goes in brackets (RFC 3986 host syntax).
            $host = str_contains($this->host, ':') && $this->host[0] !== '[' ? "[{$this->host}]" : $this->host;
            $authority = $this->port === $default ? $host : $host . ':' . $this->port;
        }
        $r = __h2_send($this->h, $request->method, $request->path, $authority, $headers, $data,
            $request->pipeline, $request->usePipelineRead, $this->timeout('write_timeout'));
        if (\is_array($r)) {
            $this->error($r);
            return false;
        }
        return $r;
    }

    public function write(int $stream_id, mixed $data, bool $end_stream = false): bool
    {
        if (!$this->available()) {
            return false;
        }
        $r = __h2_write($this->h, $stream_id, \is_array($data) ? http_build_query($data) : (string) $data, $end_stream);
        if (\is_array($r)) {
            $this->error($r);
            return false;
        }
        return true;
    }

    private function receive(float $timeout, bool $pipeline_read): Response|false
    {
        if (!$this->available()) {
            return false;
        }
        if ($timeout == 0) {
            $timeout = $this->timeout('read_timeout');
        }
        $r = __h2_recv($this->h, $timeout, $pipeline_read);
        if (!isset($r['streamId'])) {
            $this->error($r);
            if (isset($r[3])) {
                $this->serverLastStreamId = $r[3];
            }
            if (!empty($r[2])) {
                $this->gone();
            }
            return false;
        }
        $resp = new Response();
        $resp->streamId = $r['streamId'];
        $resp->statusCode = $r['statusCode'];
        $resp->pipeline = $r['pipeline'];
        if (isset($r['headers'])) {
            $resp->headers = $r['headers'];
            $resp->set_cookie_headers = $r['set_cookie_headers'];
            $resp->cookies = $r['cookies'];
        }
        if (isset($r['data'])) {
            $resp->data = $r['data'];
        }
        return $resp;
    }

    public function recv(float $timeout = 0): Response|false
    {
        return $this->receive($timeout, false);
    }

    public function read(float $timeout = 0): Response|false
    {
        return $this->receive($timeout, true);
    }

    public function goaway(int $error_code = SWOOLE_HTTP2_ERROR_NO_ERROR, string $debug_data = ''): bool
    {
        if (!$this->available()) {
            return false;
        }
        return __h2_goaway($this->h);
    }

    public function ping(): bool
    {
        if (!$this->available()) {
            return false;
        }
        return __h2_ping($this->h);
    }

    public function close(): bool
    {
        if (!$this->h) {
            return false;
        }
        __h2_close($this->h);
        $this->gone();
        return true;
    }
}

if (SWOOLE_USE_SHORTNAME) {
    class_alias(Client::class, 'Co\Http2\Client');
    class_alias(Client\Exception::class, 'Co\Http2\Client\Exception');
}
