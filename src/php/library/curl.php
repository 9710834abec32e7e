<?php
//! The PHP half of SWOOLE_HOOK_CURL / SWOOLE_HOOK_NATIVE_CURL (see
//! src/php/hook_curl.rs): what each CurlHandle was configured with, and, in
//! a coroutine, curl_exec() and curl_multi_*() performed over
//! Swoole\Coroutine\Http\Client so only the calling coroutine waits.

namespace Rswoole\Curl;

/** @internal what one CurlHandle was configured with, and its last transfer */
final class State
{
    /** Options in the order last set (later ones win, as in libcurl). */
    public array $opt = [];
    /** Created by a hooked curl_init()/curl_copy_handle(): its options are all here. */
    public bool $known = true;
    public ?Transfer $result = null;
    /** curl_multi_getcontent() of a transfer run by a hooked multi handle. */
    public ?string $content = null;
    public bool $hasContent = false;
    public ?\Swoole\Coroutine\Http\Client $client = null;
    public string $clientKey = '';

    public function __clone()
    {
        $this->result = null;
        $this->client = null;
        $this->clientKey = '';
        $this->content = null;
        $this->hasContent = false;
    }
}

/** @internal a hooked CurlMultiHandle */
final class Multi
{
    /** @var array<int, \CurlHandle> added handles by object id */
    public array $handles = [];
    /** @var array<int, true> added, not started yet */
    public array $pending = [];
    /** @var array<int, true> running in their own coroutine */
    public array $running = [];
    /** @var list<array{\CurlHandle, int}> finished: handle and curl errno */
    public array $done = [];
    public ?\Swoole\Coroutine\Channel $wake = null;
}

/** @internal the hook entry points called by hook_curl.rs */
final class Hook
{
    private static ?\WeakMap $easy = null;
    private static ?\WeakMap $multi = null;

    private static function state(mixed $ch): ?State
    {
        if (!$ch instanceof \CurlHandle || self::$easy === null) {
            return null;
        }
        return self::$easy[$ch] ?? null;
    }

    private static function set(State $s, mixed $k, mixed $v): void
    {
        // Re-set keys move to the end, so the order says which came last.
        unset($s->opt[$k]);
        if ($v !== null) {
            $s->opt[$k] = $v;
        }
    }

    /** After ext/curl ran $fn($args...) and returned $ret. */
    public static function after(string $fn, array $args, mixed $ret): void
    {
        self::$easy ??= new \WeakMap();
        switch ($fn) {
            case 'curl_init':
                if ($ret instanceof \CurlHandle) {
                    $s = new State();
                    if (isset($args[0]) && is_string($args[0])) {
                        $s->opt[\CURLOPT_URL] = $args[0];
                    }
                    self::$easy[$ret] = $s;
                }
                return;
            case 'curl_copy_handle':
                $s = self::state($args[0] ?? null);
                if ($ret instanceof \CurlHandle && $s) {
                    self::$easy[$ret] = clone $s;
                }
                return;
        }
        $s = self::state($args[0] ?? null);
        if (!$s) {
            return;
        }
        switch ($fn) {
            case 'curl_setopt':
                if ($ret === true) {
                    self::set($s, $args[1], $args[2] ?? null);
                }
                return;
            case 'curl_setopt_array':
                if ($ret === true && is_array($args[1] ?? null)) {
                    foreach ($args[1] as $k => $v) {
                        self::set($s, $k, $v);
                    }
                }
                return;
            case 'curl_reset':
                $s->opt = [];
                $s->result = null;
                $s->hasContent = false;
                $s->content = null;
                return;
            case 'curl_close':
                $s->client?->close();
                $s->client = null;
                return;
        }
    }

    /**
     * Before ext/curl runs $fn: the answer [value, [arg index => out value]],
     * or null for ext/curl's own function.
     */
    public static function call(string $fn, array $a, bool $co): ?array
    {
        switch ($fn) {
            case 'curl_exec':
                $s = self::state($a[0] ?? null);
                if ($s) {
                    $s->result = null;
                }
                if (!$co || !$s || !$s->known) {
                    return null;
                }
                $t = new Transfer($a[0], $s);
                if (!$t->supported()) {
                    return null;
                }
                $r = $t->run();
                $s->result = $t;
                return [$r];
            case 'curl_getinfo':
                $s = self::state($a[0] ?? null);
                if (!$s || !$s->result) {
                    return null;
                }
                if (!array_key_exists(1, $a) || $a[1] === null) {
                    return [$s->result->info()];
                }
                $v = $s->result->infoOf($a[1]);
                return $v === null ? null : [$v[0]];
            case 'curl_error':
                $s = self::state($a[0] ?? null);
                return $s && $s->result ? [$s->result->error] : null;
            case 'curl_errno':
                $s = self::state($a[0] ?? null);
                return $s && $s->result ? [$s->result->errno] : null;
            case 'curl_multi_getcontent':
                $s = self::state($a[0] ?? null);
                return $s && $s->hasContent ? [$s->content] : null;
        }
        $mh = $a[0] ?? null;
        if (!$mh instanceof \CurlMultiHandle) {
            return null;
        }
        self::$multi ??= new \WeakMap();
        $m = self::$multi[$mh] ?? null;
        if ($fn === 'curl_multi_close') {
            unset(self::$multi[$mh]);
            return null;
        }
        // Outside a coroutine a multi handle is ours only while it holds
        // transfers added in one; otherwise ext/curl's own.
        if (!$co && (!$m || !$m->handles)) {
            return null;
        }
        if (!$m) {
            if ($fn !== 'curl_multi_add_handle') {
                return null;
            }
            $m = self::$multi[$mh] = new Multi();
        }
        switch ($fn) {
            case 'curl_multi_add_handle':
                $ch = $a[1] ?? null;
                if (!$co || !$ch instanceof \CurlHandle) {
                    return null;
                }
                $id = spl_object_id($ch);
                if (isset($m->handles[$id])) {
                    return [\CURLM_ADDED_ALREADY];
                }
                $m->handles[$id] = $ch;
                $m->pending[$id] = true;
                return [\CURLM_OK];
            case 'curl_multi_remove_handle':
                $ch = $a[1] ?? null;
                if (!$ch instanceof \CurlHandle) {
                    return null;
                }
                $id = spl_object_id($ch);
                if (!isset($m->handles[$id])) {
                    return null;
                }
                unset($m->handles[$id], $m->pending[$id]);
                $m->done = array_values(array_filter($m->done, fn ($d) => $d[0] !== $ch));
                return [\CURLM_OK];
            case 'curl_multi_exec':
                self::start($m);
                return [\CURLM_OK, [1 => count($m->running)]];
            case 'curl_multi_select':
                $timeout = (float) ($a[1] ?? 1.0);
                // libcurl's wait returns at once for a handle just added
                // (its timer is due): start those instead of waiting.
                self::start($m);
                if ($co) {
                    self::wait($m, $timeout);
                }
                return [count($m->done)];
            case 'curl_multi_info_read':
                $d = array_shift($m->done);
                if ($d === null) {
                    return [false, [1 => 0]];
                }
                return [
                    ['msg' => \CURLMSG_DONE, 'result' => $d[1], 'handle' => $d[0]],
                    [1 => count($m->done)],
                ];
        }
        return null;
    }

    /** Runs every added handle not started yet in its own coroutine. */
    private static function start(Multi $m): void
    {
        $m->wake ??= new \Swoole\Coroutine\Channel(1);
        foreach (array_keys($m->pending) as $id) {
            unset($m->pending[$id]);
            $ch = $m->handles[$id];
            $m->running[$id] = true;
            \Swoole\Coroutine::create(static function () use ($m, $ch, $id) {
                self::$easy ??= new \WeakMap();
                $s = self::$easy[$ch] ?? null;
                if (!$s) {
                    $s = self::$easy[$ch] = new State();
                    $s->known = false;
                }
                $s->hasContent = false;
                $r = curl_exec($ch);
                $s->content = is_string($r) ? $r : null;
                $s->hasContent = true;
                $errno = curl_errno($ch);
                unset($m->running[$id]);
                if (isset($m->handles[$id])) {
                    $m->done[] = [$ch, $errno];
                }
                if ($m->wake->length() === 0) {
                    $m->wake->push(true);
                }
            });
        }
    }

    /** curl_multi_select(): until a transfer finished or $timeout passed. */
    private static function wait(Multi $m, float $timeout): void
    {
        $until = microtime(true) + max(0.0, $timeout);
        while (!$m->done && $m->running) {
            $left = $until - microtime(true);
            if ($left <= 0) {
                return;
            }
            $m->wake->pop($left);
        }
    }
}

/** @internal one curl_exec() over Swoole\Coroutine\Http\Client */
final class Transfer
{
    private const CHUNK = 16384;
    private const REASONS = [
        100 => 'Continue', 101 => 'Switching Protocols', 200 => 'OK', 201 => 'Created',
        202 => 'Accepted', 203 => 'Non-Authoritative Information', 204 => 'No Content',
        205 => 'Reset Content', 206 => 'Partial Content', 300 => 'Multiple Choices',
        301 => 'Moved Permanently', 302 => 'Found', 303 => 'See Other', 304 => 'Not Modified',
        307 => 'Temporary Redirect', 308 => 'Permanent Redirect', 400 => 'Bad Request',
        401 => 'Unauthorized', 402 => 'Payment Required', 403 => 'Forbidden', 404 => 'Not Found',
        405 => 'Method Not Allowed', 406 => 'Not Acceptable', 408 => 'Request Timeout',
        409 => 'Conflict', 410 => 'Gone', 411 => 'Length Required', 412 => 'Precondition Failed',
        413 => 'Payload Too Large', 414 => 'URI Too Long', 415 => 'Unsupported Media Type',
        416 => 'Range Not Satisfiable', 417 => 'Expectation Failed', 418 => "I'm a teapot",
        422 => 'Unprocessable Entity', 425 => 'Too Early', 426 => 'Upgrade Required',
        428 => 'Precondition Required', 429 => 'Too Many Requests',
        431 => 'Request Header Fields Too Large', 451 => 'Unavailable For Legal Reasons',
        500 => 'Internal Server Error', 501 => 'Not Implemented', 502 => 'Bad Gateway',
        503 => 'Service Unavailable', 504 => 'Gateway Timeout', 505 => 'HTTP Version Not Supported',
    ];

    public int $errno = 0;
    public string $error = '';
    private array $o;
    private string $url;
    private array $u = [];
    private int $code = 0;
    private ?string $contentType = null;
    private int $headerSize = 0;
    private int $requestSize = 0;
    private int $redirects = 0;
    private string $redirectUrl = '';
    private float $start;
    private float $connectTime = 0.0;
    private float $firstByte = 0.0;
    private float $total = 0.0;
    private int $upload = 0;
    private int $download = 0;
    private float $downloadLength = -1.0;
    private string $ip = '';
    private int $port = 0;
    private string $localIp = '';
    private int $localPort = 0;
    private string $headerOut = '';
    private string $method = 'GET';
    private string $returned = '';

    /**
     * The handle only while run() runs: this object stays in the handle's
     * State (a WeakMap value), and a value holding its key would keep the
     * handle alive forever.
     */
    private ?\CurlHandle $ch;

    public function __construct(\CurlHandle $ch, private ?State $s)
    {
        $this->ch = $ch;
        $this->o = $s->opt;
        $this->url = (string) ($this->o[\CURLOPT_URL] ?? '');
        $this->start = microtime(true);
    }

    private function opt(int $k, mixed $default = null): mixed
    {
        return $this->o[$k] ?? $default;
    }

    private static function parse(string $url): ?array
    {
        if (!preg_match('~^[a-zA-Z][a-zA-Z0-9+.-]*://~', $url)) {
            $url = 'http://' . $url;
        }
        $u = parse_url($url);
        if ($u === false || !isset($u['host'])) {
            return null;
        }
        $u['scheme'] = strtolower($u['scheme'] ?? 'http');
        return $u;
    }

    /** Whether this transfer can run here (else ext/curl runs it, blocking). */
    public function supported(): bool
    {
        $u = self::parse($this->url);
        if ($u === null || !in_array($u['scheme'], ['http', 'https'], true)) {
            return false;
        }
        foreach ([\CURLOPT_PROXY, \CURLOPT_UNIX_SOCKET_PATH, \CURLOPT_RESOLVE, \CURLOPT_CONNECT_TO,
                  \CURLOPT_INTERFACE] as $k) {
            if (!empty($this->o[$k])) {
                return false;
            }
        }
        if (defined('CURLOPT_ABSTRACT_UNIX_SOCKET') && !empty($this->o[\CURLOPT_ABSTRACT_UNIX_SOCKET])) {
            return false;
        }
        if (!array_key_exists(\CURLOPT_PROXY, $this->o)
            && (getenv('http_proxy') || getenv('HTTP_PROXY') || getenv('all_proxy') || getenv('ALL_PROXY'))) {
            return false;
        }
        if (($this->o[\CURLOPT_HTTP_VERSION] ?? 0) === \CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE) {
            return false;
        }
        $this->u = $u;
        return true;
    }

    private function fail(int $errno, string $error): bool
    {
        $this->errno = $errno;
        $this->error = $error;
        $this->total = microtime(true) - $this->start;
        return false;
    }

    private function ms(): int
    {
        return (int) round((microtime(true) - $this->start) * 1000);
    }

    /** The transfer; curl_exec()'s return value. */
    public function run(): string|bool
    {
        try {
            return $this->transfer();
        } finally {
            $this->ch = null;
            $this->s = null;
        }
    }

    private function transfer(): string|bool
    {
        $protocols = $this->opt(\CURLOPT_PROTOCOLS);
        $bit = $this->u['scheme'] === 'https' ? \CURLPROTO_HTTPS : \CURLPROTO_HTTP;
        if ($protocols !== null && !((int) $protocols & $bit)) {
            return $this->fail(1, 'Protocol "' . $this->u['scheme'] . '" not supported or disabled in libcurl');
        }
        // What libcurl decides from the options, in the order they were set.
        $method = 'GET';
        $nobody = false;
        $upload = false;
        $out = 'stdout';
        foreach ($this->o as $k => $v) {
            switch ($k) {
                case \CURLOPT_HTTPGET:
                    if ($v) {
                        $method = 'GET';
                        $nobody = $upload = false;
                    }
                    break;
                case \CURLOPT_POST:
                    $method = $v ? 'POST' : 'GET';
                    $nobody = $upload = false;
                    break;
                case \CURLOPT_POSTFIELDS:
                    $method = 'POST';
                    $nobody = $upload = false;
                    break;
                case \CURLOPT_NOBODY:
                    $nobody = (bool) $v;
                    if ($v) {
                        $method = 'HEAD';
                    } elseif ($method === 'HEAD') {
                        $method = 'GET';
                    }
                    break;
                case \CURLOPT_UPLOAD:
                case \CURLOPT_PUT:
                    $upload = (bool) $v;
                    $method = $v ? 'PUT' : 'GET';
                    $nobody = false;
                    break;
                case \CURLOPT_RETURNTRANSFER:
                    $out = $v ? 'return' : 'stdout';
                    break;
                case \CURLOPT_WRITEFUNCTION:
                    $out = 'user';
                    break;
                case \CURLOPT_FILE:
                    $out = 'file';
                    break;
            }
        }
        $body = null;
        $contentType = null;
        if ($upload) {
            $body = $this->readUpload();
            if ($body === null) {
                return $this->fail(26, 'Failed to read the upload data');
            }
        } elseif ($method === 'POST') {
            $f = $this->opt(\CURLOPT_POSTFIELDS, '');
            if (is_array($f) || is_object($f)) {
                [$body, $contentType] = self::multipart((array) $f);
            } else {
                $body = (string) $f;
                $contentType = 'application/x-www-form-urlencoded';
            }
        }
        if (is_string($custom = $this->opt(\CURLOPT_CUSTOMREQUEST)) && $custom !== '') {
            $method = $custom;
        }
        $this->method = $method;
        $this->upload = $body === null ? 0 : strlen($body);

        $follow = (bool) $this->opt(\CURLOPT_FOLLOWLOCATION, false);
        $max = (int) $this->opt(\CURLOPT_MAXREDIRS, 30);
        $u = $this->u;
        $firstHost = strtolower($u['host']);
        $headersOut = [];
        while (true) {
            $r = $this->once($u, $method, $body, $contentType, $nobody, strtolower($u['host']) !== $firstHost);
            if ($r === false) {
                return false;
            }
            [$code, $headers, $respBody] = $r;
            $location = null;
            foreach ($headers as $h) {
                if (strcasecmp($h[0], 'location') === 0) {
                    $location = $h[1];
                }
            }
            $isRedirect = in_array($code, [301, 302, 303, 307, 308], true) && $location !== null;
            if ($isRedirect) {
                $next = self::resolve($u, $location);
                if (!$follow) {
                    $this->redirectUrl = $next;
                }
            }
            if (!$this->headers($code, $headers, $out)) {
                return $this->fail(23, 'Failed writing header');
            }
            if ($isRedirect && $follow) {
                if ($max >= 0 && $this->redirects >= $max) {
                    return $this->fail(47, "Maximum ($max) redirects followed");
                }
                $nu = self::parse($next);
                if ($nu === null || !in_array($nu['scheme'], ['http', 'https'], true)) {
                    return $this->fail(1, 'Protocol "' . ($nu['scheme'] ?? '') . '" not supported or disabled in libcurl');
                }
                $this->redirects++;
                if ($code === 303 && $method !== 'HEAD'
                    || ($code === 301 || $code === 302) && $method === 'POST') {
                    $method = 'GET';
                    $body = null;
                    $contentType = null;
                }
                $u = $nu;
                $this->url = $next;
                continue;
            }
            $this->code = $code;
            if (!$nobody && !$this->write($respBody, $out)) {
                return $this->fail(23, 'Failure writing output to destination');
            }
            break;
        }
        $this->total = microtime(true) - $this->start;
        return $out === 'return' ? $this->returned : true;
    }

    /** The request body of CURLOPT_UPLOAD/PUT (READFUNCTION or INFILE). */
    private function readUpload(): ?string
    {
        $size = (int) $this->opt(\CURLOPT_INFILESIZE, -1);
        $fn = $this->opt(\CURLOPT_READFUNCTION);
        $in = $this->opt(\CURLOPT_INFILE);
        $data = '';
        while ($size < 0 || strlen($data) < $size) {
            $want = $size < 0 ? self::CHUNK : min(self::CHUNK, $size - strlen($data));
            if ($fn !== null) {
                $chunk = $fn($this->ch, $in, $want);
            } elseif (is_resource($in)) {
                $chunk = fread($in, $want);
            } else {
                break;
            }
            if (!is_string($chunk)) {
                return null;
            }
            if ($chunk === '') {
                break;
            }
            $data .= $chunk;
        }
        return $data;
    }

    /** An array CURLOPT_POSTFIELDS as libcurl sends it: multipart/form-data. */
    private static function multipart(array $fields): array
    {
        $b = '------------------------' . bin2hex(random_bytes(8));
        $out = '';
        foreach ($fields as $name => $v) {
            $out .= "--$b\r\n";
            if ($v instanceof \CURLStringFile) {
                $out .= "Content-Disposition: form-data; name=\"$name\"; filename=\"{$v->postname}\"\r\n"
                    . "Content-Type: {$v->mime}\r\n\r\n{$v->data}\r\n";
            } elseif ($v instanceof \CURLFile) {
                $fname = $v->getPostFilename() ?: basename($v->getFilename());
                $mime = $v->getMimeType() ?: 'application/octet-stream';
                $data = (string) @file_get_contents($v->getFilename());
                $out .= "Content-Disposition: form-data; name=\"$name\"; filename=\"$fname\"\r\n"
                    . "Content-Type: $mime\r\n\r\n$data\r\n";
            } else {
                $out .= "Content-Disposition: form-data; name=\"$name\"\r\n\r\n$v\r\n";
            }
        }
        $out .= "--$b--\r\n";
        return [$out, "multipart/form-data; boundary=$b"];
    }

    private static function resolve(array $base, string $loc): string
    {
        if (preg_match('~^[a-zA-Z][a-zA-Z0-9+.-]*://~', $loc)) {
            return $loc;
        }
        $origin = $base['scheme'] . '://' . $base['host'] . (isset($base['port']) ? ':' . $base['port'] : '');
        if (str_starts_with($loc, '//')) {
            return $base['scheme'] . ':' . $loc;
        }
        if (str_starts_with($loc, '/')) {
            return $origin . $loc;
        }
        $dir = preg_replace('~/[^/]*$~', '/', $base['path'] ?? '/');
        return $origin . $dir . $loc;
    }

    /** One request and response; [code, [[name, value]...], body] or false. */
    private function once(array $u, string $method, ?string $body, ?string $contentType, bool $nobody, bool $otherHost): array|false
    {
        $host = $u['host'];
        $tls = $u['scheme'] === 'https';
        $port = (int) ($u['port'] ?? ($tls ? 443 : 80));
        $bare = trim($host, '[]');
        $ip = $bare;
        if (filter_var($bare, FILTER_VALIDATE_IP) === false) {
            $ip = strtolower($bare) === 'localhost' ? '127.0.0.1'
                : \Swoole\Coroutine\System::gethostbyname($bare, 2, $this->connectTimeout());
            if ($ip === false || $ip === '') {
                return $this->fail(6, "Could not resolve host: $bare");
            }
        }
        $ssl = $tls ? $this->sslSettings($bare) : [];
        $key = "{$u['scheme']}://$ip:$port" . ($ssl ? '#' . md5(serialize($ssl)) : '');
        $fresh = $this->opt(\CURLOPT_FRESH_CONNECT) || $this->opt(\CURLOPT_FORBID_REUSE);
        if ($this->s->client === null || $this->s->clientKey !== $key || $fresh) {
            $this->s->client?->close();
            $this->s->client = new \Swoole\Coroutine\Http\Client($ip, $port, $tls);
            $this->s->clientKey = $key;
        }
        $cli = $this->s->client;
        $timeout = $this->timeout();
        $connect = $this->connectTimeout();
        if ($timeout > 0) {
            $left = $timeout - (microtime(true) - $this->start);
            if ($left <= 0) {
                return $this->fail(28, 'Operation timed out after ' . $this->ms() . ' milliseconds with 0 bytes received');
            }
            $connect = min($connect, $left);
        } else {
            $left = -1;
        }
        $decode = array_key_exists(\CURLOPT_ENCODING, $this->o) && $this->o[\CURLOPT_ENCODING] !== null;
        $cli->set([
            'timeout' => $left,
            'connect_timeout' => $connect,
            'lowercase_header' => false,
            'http_compression' => false,
            'body_decompression' => $decode,
            'keep_alive' => !$this->opt(\CURLOPT_FORBID_REUSE),
        ] + $ssl);
        // Request headers: libcurl's defaults, then CURLOPT_HTTPHEADER
        // ("Name:" removes one, "Name;" sends it empty).
        $hostHeader = $host . (isset($u['port']) ? ':' . $u['port'] : '');
        $h = ['Host' => $hostHeader, 'Accept' => '*/*'];
        if (is_string($ua = $this->opt(\CURLOPT_USERAGENT)) && $ua !== '') {
            $h['User-Agent'] = $ua;
        }
        if (is_string($ref = $this->opt(\CURLOPT_REFERER)) && $ref !== '') {
            $h['Referer'] = $ref;
        }
        if ($decode) {
            $enc = (string) $this->o[\CURLOPT_ENCODING];
            $h['Accept-Encoding'] = $enc === '' ? 'deflate, gzip' : $enc;
        }
        if ($contentType !== null) {
            $h['Content-Type'] = $contentType;
        }
        $user = $this->opt(\CURLOPT_USERPWD);
        if (!is_string($user) && isset($u['user'])) {
            $user = rawurldecode($u['user']) . ':' . rawurldecode($u['pass'] ?? '');
        }
        $auth = (int) $this->opt(\CURLOPT_HTTPAUTH, \CURLAUTH_BASIC);
        if (is_string($user) && $user !== '' && ($auth & \CURLAUTH_BASIC)
            && (!$otherHost || $this->opt(\CURLOPT_UNRESTRICTED_AUTH))) {
            $h['Authorization'] = 'Basic ' . base64_encode($user);
        }
        foreach ((array) $this->opt(\CURLOPT_HTTPHEADER, []) as $line) {
            $line = (string) $line;
            if (preg_match('/^([^:;\s]+)\s*:\s*(.*)$/s', $line, $m)) {
                foreach ($h as $k => $_) {
                    if (strcasecmp($k, $m[1]) === 0) {
                        unset($h[$k]);
                    }
                }
                if ($m[2] !== '') {
                    $h[$m[1]] = rtrim($m[2]);
                }
            } elseif (preg_match('/^([^:;\s]+)\s*;\s*$/', $line, $m)) {
                $h[$m[1]] = '';
            }
        }
        if (is_string($cookie = $this->opt(\CURLOPT_COOKIE)) && $cookie !== '') {
            $h['Cookie'] = isset($h['Cookie']) ? $h['Cookie'] . '; ' . $cookie : $cookie;
        }
        $path = ($u['path'] ?? '') === '' ? '/' : $u['path'];
        if (isset($u['query'])) {
            $path .= '?' . $u['query'];
        }
        $cli->setMethod($method);
        $cli->setHeaders($h);
        $cli->setData($body);
        $ok = $cli->execute($path);
        // Read before getpeername()/getsockname(), which set errCode too.
        $err = $cli->errCode;
        $status = $cli->statusCode;
        $this->headerOut = (string) $cli->getHeaderOut();
        $this->requestSize += strlen($this->headerOut) + strlen((string) $body);
        $peer = $cli->getpeername();
        if (is_array($peer)) {
            $this->ip = (string) ($peer['address'] ?? '');
            $this->port = (int) ($peer['port'] ?? 0);
        }
        $local = $cli->getsockname();
        if (is_array($local)) {
            $this->localIp = (string) ($local['address'] ?? '');
            $this->localPort = (int) ($local['port'] ?? 0);
        }
        if (!$ok || $status < 0) {
            $cli->close();
            $this->s->client = null;
            if ($tls && $err >= 1010 && $err <= 1020) {
                // SWOOLE_ERROR_SSL_*: a failed verification or handshake.
                return $err === 1014
                    ? $this->fail(60, 'SSL certificate problem: unable to verify the certificate of ' . $bare)
                    : $this->fail(35, 'SSL connect error: ' . $cli->errMsg);
            }
            if ($status === -1) {
                if ($err === 110) {
                    return $this->fail(28, 'Connection timed out after ' . $this->ms() . ' milliseconds');
                }
                if ($err === 704) {
                    return $this->fail(6, "Could not resolve host: $bare");
                }
                return $this->fail(7, "Failed to connect to $bare port $port after " . $this->ms() . " ms: Couldn't connect to server");
            }
            if ($status === -2) {
                return $this->fail(28, 'Operation timed out after ' . $this->ms() . ' milliseconds with 0 bytes received');
            }
            return $this->fail(52, 'Empty reply from server');
        }
        $this->firstByte = $this->firstByte ?: microtime(true) - $this->start;
        $this->connectTime = $this->connectTime ?: $this->firstByte;
        $headers = [];
        $cookies = (array) ($cli->set_cookie_headers ?? []);
        foreach ((array) $cli->headers as $k => $v) {
            if ($cookies && strcasecmp((string) $k, 'set-cookie') === 0) {
                continue;
            }
            $headers[] = [(string) $k, (string) $v];
            if (strcasecmp((string) $k, 'content-type') === 0) {
                $this->contentType = (string) $v;
            }
            if (strcasecmp((string) $k, 'content-length') === 0) {
                $this->downloadLength = (float) $v;
            }
        }
        foreach ($cookies as $c) {
            $headers[] = ['Set-Cookie', (string) $c];
        }
        $respBody = (string) $cli->body;
        $this->download = strlen($respBody);
        return [$cli->statusCode, $headers, $respBody];
    }

    /**
     * The client's ssl_* settings for an https transfer to `$host`:
     * CURLOPT_SSL_VERIFYPEER (libcurl's default: on), CURLOPT_SSL_VERIFYHOST
     * (0 skips the name check), CURLOPT_CAINFO, CURLOPT_CAPATH,
     * CURLOPT_SSLCERT and CURLOPT_SSLKEY.
     */
    private function sslSettings(string $host): array
    {
        $verify = (bool) $this->opt(\CURLOPT_SSL_VERIFYPEER, true);
        $ssl = ['ssl_verify_peer' => $verify];
        $isName = filter_var($host, FILTER_VALIDATE_IP) === false;
        if ($isName && (int) $this->opt(\CURLOPT_SSL_VERIFYHOST, 2) !== 0) {
            // The connection is made to the resolved address: the name to
            // check (and send as SNI) is the URL's.
            $ssl['ssl_host_name'] = $host;
        }
        foreach ([\CURLOPT_CAINFO => 'ssl_cafile', \CURLOPT_CAPATH => 'ssl_capath',
                  \CURLOPT_SSLCERT => 'ssl_cert_file', \CURLOPT_SSLKEY => 'ssl_key_file'] as $k => $name) {
            if (is_string($v = $this->opt($k)) && $v !== '') {
                $ssl[$name] = $v;
            }
        }
        return $ssl;
    }

    private function timeout(): float
    {
        $ms = $this->opt(\CURLOPT_TIMEOUT_MS);
        if ($ms !== null && (int) $ms > 0) {
            return (int) $ms / 1000;
        }
        $s = $this->opt(\CURLOPT_TIMEOUT);
        return $s !== null && (int) $s > 0 ? (float) (int) $s : 0.0;
    }

    private function connectTimeout(): float
    {
        $ms = $this->opt(\CURLOPT_CONNECTTIMEOUT_MS);
        if ($ms !== null && (int) $ms > 0) {
            return (int) $ms / 1000;
        }
        $s = $this->opt(\CURLOPT_CONNECTTIMEOUT);
        return $s !== null && (int) $s > 0 ? (float) (int) $s : 300.0;
    }

    /** The response head, line by line, to HEADERFUNCTION/WRITEHEADER (and the body with CURLOPT_HEADER). */
    private function headers(int $code, array $headers, string $out): bool
    {
        $lines = ["HTTP/1.1 $code " . (self::REASONS[$code] ?? '') . "\r\n"];
        foreach ($headers as [$k, $v]) {
            $lines[] = "$k: $v\r\n";
        }
        $lines[] = "\r\n";
        $fn = $this->opt(\CURLOPT_HEADERFUNCTION);
        $file = $this->opt(\CURLOPT_WRITEHEADER);
        foreach ($lines as $line) {
            $this->headerSize += strlen($line);
            if ($fn !== null) {
                $n = $fn($this->ch, $line);
                if ((int) $n !== strlen($line)) {
                    return false;
                }
            } elseif (is_resource($file)) {
                fwrite($file, $line);
            }
        }
        if ($this->opt(\CURLOPT_HEADER)) {
            return $this->write(implode('', $lines), $out);
        }
        return true;
    }

    /** Body bytes to where CURLOPT_RETURNTRANSFER/FILE/WRITEFUNCTION say. */
    private function write(string $data, string $out): bool
    {
        if ($data === '') {
            return true;
        }
        switch ($out) {
            case 'return':
                $this->returned .= $data;
                return true;
            case 'file':
                $f = $this->opt(\CURLOPT_FILE);
                return is_resource($f) && fwrite($f, $data) === strlen($data);
            case 'user':
                $fn = $this->opt(\CURLOPT_WRITEFUNCTION);
                foreach (str_split($data, self::CHUNK) as $chunk) {
                    $n = $fn($this->ch, $chunk);
                    if ((int) $n !== strlen($chunk)) {
                        return false;
                    }
                }
                return true;
        }
        echo $data;
        return true;
    }

    /** curl_getinfo($ch) after this transfer. */
    public function info(): array
    {
        $t = $this->total;
        $us = static fn (float $s): int => (int) round($s * 1e6);
        $speed = static fn (int $n) => $t > 0 ? (float) (int) ($n / $t) : 0.0;
        $info = [
            'url' => $this->url,
            'content_type' => $this->contentType,
            'http_code' => $this->code,
            'header_size' => $this->headerSize,
            'request_size' => $this->requestSize,
            'filetime' => -1,
            'ssl_verify_result' => 0,
            'redirect_count' => $this->redirects,
            'total_time' => round($t, 6),
            'namelookup_time' => 0.0,
            'connect_time' => round($this->connectTime, 6),
            'pretransfer_time' => round($this->connectTime, 6),
            'size_upload' => (float) $this->upload,
            'size_download' => (float) $this->download,
            'speed_download' => $speed($this->download),
            'speed_upload' => $speed($this->upload),
            'download_content_length' => $this->downloadLength,
            'upload_content_length' => $this->upload ? (float) $this->upload : -1.0,
            'starttransfer_time' => round($this->firstByte, 6),
            'redirect_time' => 0.0,
            'redirect_url' => $this->redirectUrl,
            'primary_ip' => $this->ip,
            'certinfo' => [],
            'primary_port' => $this->port,
            'local_ip' => $this->localIp,
            'local_port' => $this->localPort,
            'http_version' => $this->code ? \CURL_HTTP_VERSION_1_1 : 0,
            'protocol' => ($this->u['scheme'] ?? '') === 'https' ? \CURLPROTO_HTTPS : \CURLPROTO_HTTP,
            'ssl_verifyresult' => 0,
            'scheme' => strtoupper($this->u['scheme'] ?? 'http'),
            'appconnect_time_us' => 0,
            'connect_time_us' => $us($this->connectTime),
            'namelookup_time_us' => 0,
            'pretransfer_time_us' => $us($this->connectTime),
            'redirect_time_us' => 0,
            'starttransfer_time_us' => $us($this->firstByte),
            'total_time_us' => $us($t),
            'effective_method' => $this->method,
        ];
        if ($this->opt(\CURLINFO_HEADER_OUT)) {
            $info['request_header'] = $this->headerOut;
        }
        return $info;
    }

    /** curl_getinfo($ch, $option): [value], or null for ext/curl's answer. */
    public function infoOf(int $opt): ?array
    {
        if ($opt === \CURLINFO_HEADER_OUT) {
            return [$this->opt(\CURLINFO_HEADER_OUT) ? $this->headerOut : false];
        }
        if ($opt === \CURLINFO_PRIVATE) {
            return array_key_exists(\CURLOPT_PRIVATE, $this->o) ? [$this->o[\CURLOPT_PRIVATE]] : null;
        }
        if ($opt === \CURLINFO_APPCONNECT_TIME) {
            return [0.0];
        }
        if (defined('CURLINFO_OS_ERRNO') && $opt === \CURLINFO_OS_ERRNO) {
            return [$this->errno === 7 ? 111 : 0];
        }
        $names = [
            \CURLINFO_EFFECTIVE_URL => 'url', \CURLINFO_HTTP_CODE => 'http_code',
            \CURLINFO_CONTENT_TYPE => 'content_type', \CURLINFO_HEADER_SIZE => 'header_size',
            \CURLINFO_REQUEST_SIZE => 'request_size', \CURLINFO_FILETIME => 'filetime',
            \CURLINFO_SSL_VERIFYRESULT => 'ssl_verify_result', \CURLINFO_REDIRECT_COUNT => 'redirect_count',
            \CURLINFO_TOTAL_TIME => 'total_time', \CURLINFO_NAMELOOKUP_TIME => 'namelookup_time',
            \CURLINFO_CONNECT_TIME => 'connect_time', \CURLINFO_PRETRANSFER_TIME => 'pretransfer_time',
            \CURLINFO_SIZE_UPLOAD => 'size_upload', \CURLINFO_SIZE_DOWNLOAD => 'size_download',
            \CURLINFO_SPEED_DOWNLOAD => 'speed_download', \CURLINFO_SPEED_UPLOAD => 'speed_upload',
            \CURLINFO_CONTENT_LENGTH_DOWNLOAD => 'download_content_length',
            \CURLINFO_CONTENT_LENGTH_UPLOAD => 'upload_content_length',
            \CURLINFO_STARTTRANSFER_TIME => 'starttransfer_time', \CURLINFO_REDIRECT_TIME => 'redirect_time',
            \CURLINFO_REDIRECT_URL => 'redirect_url', \CURLINFO_PRIMARY_IP => 'primary_ip',
            \CURLINFO_PRIMARY_PORT => 'primary_port', \CURLINFO_LOCAL_IP => 'local_ip',
            \CURLINFO_LOCAL_PORT => 'local_port', \CURLINFO_HTTP_VERSION => 'http_version',
            \CURLINFO_PROTOCOL => 'protocol', \CURLINFO_SCHEME => 'scheme',
            \CURLINFO_TOTAL_TIME_T => 'total_time_us', \CURLINFO_CONNECT_TIME_T => 'connect_time_us',
            \CURLINFO_STARTTRANSFER_TIME_T => 'starttransfer_time_us',
            \CURLINFO_PRETRANSFER_TIME_T => 'pretransfer_time_us',
            \CURLINFO_NAMELOOKUP_TIME_T => 'namelookup_time_us',
            \CURLINFO_REDIRECT_TIME_T => 'redirect_time_us',
            \CURLINFO_APPCONNECT_TIME_T => 'appconnect_time_us',
            \CURLINFO_EFFECTIVE_METHOD => 'effective_method',
            \CURLINFO_RESPONSE_CODE => 'http_code',
        ];
        $name = $names[$opt] ?? null;
        if ($name === null) {
            return null;
        }
        $v = $this->info()[$name];
        if ($name === 'content_type' && $v === null) {
            return [null];
        }
        return [$v];
    }
}
