<?php
// Test helpers for the rswoole phpt suite: fork a server child, wait for its port, drive it with raw HTTP clients, always stop it.
//
// Our own small process helper (pcntl_fork based). Every server listens on 127.0.0.1 (or ::1)
// on a free port, runs in its own process group, and is always stopped: SIGTERM, bounded wait,
// then SIGKILL of the whole group. A watchdog process kills the group if the test process dies
// (for example when run-tests.php times the test out) or after a hard time limit.

declare(strict_types=1);

foreach (['posix', 'sockets'] as $__rsw_ext) {
    if (!extension_loaded($__rsw_ext) && function_exists('dl')) {
        @dl($__rsw_ext . '.so');
    }
}
if (!function_exists('posix_kill') || !function_exists('pcntl_fork')) {
    fwrite(STDERR, "rswoole tests need the pcntl and posix extensions\n");
    exit(1);
}

const RSW_HOST = '127.0.0.1';

/** Path of the extension under test (the runner exports RSWOOLE_SO). */
function rsw_so_path(): string
{
    $so = getenv('RSWOOLE_SO');
    if (is_string($so) && $so !== '') {
        return $so;
    }
    // Fallback: find the mapped shared object that provides the swoole module.
    foreach (@file('/proc/self/maps') ?: [] as $line) {
        if (preg_match('~(/\S*swoole\S*\.so)\s*$~', $line, $m)) {
            return $m[1];
        }
    }
    return dirname(__DIR__, 2) . '/target/release/librswoole.so';
}

/** Command prefix that runs PHP with the extension under test and nothing else from php.ini. */
function rsw_php_cmd(): array
{
    $cmd = [PHP_BINARY, '-n', '-d', 'extension=' . rsw_so_path()];
    foreach (['posix', 'sockets'] as $ext) {
        if (extension_loaded($ext)) {
            $cmd[] = '-d';
            $cmd[] = "extension=$ext";
        }
    }
    $cmd[] = '-d';
    $cmd[] = 'display_errors=stderr';
    return $cmd;
}

/** A TCP port on which nothing listens right now (bind to port 0, read it, close). */
function rsw_free_port(string $host = RSW_HOST): int
{
    $addr = str_contains($host, ':') ? "tcp://[$host]:0" : "tcp://$host:0";
    $s = @stream_socket_server($addr, $errno, $errstr);
    if ($s === false) {
        throw new RuntimeException("rsw_free_port($host): $errstr");
    }
    $name = stream_socket_get_name($s, false);
    fclose($s);
    return (int) substr($name, strrpos($name, ':') + 1);
}

function rsw_addr(string $host, int $port): string
{
    return str_contains($host, ':') ? "tcp://[$host]:$port" : "tcp://$host:$port";
}

/** Poll $cond every 20 ms until it returns truthy or $timeout seconds pass. */
function rsw_wait_until(callable $cond, float $timeout = 5.0): bool
{
    $deadline = microtime(true) + $timeout;
    do {
        if ($cond()) {
            return true;
        }
        usleep(20000);
    } while (microtime(true) < $deadline);
    return (bool) $cond();
}

/** True when a TCP connect to host:port succeeds within $timeout. */
function rsw_port_open(int $port, string $host = RSW_HOST, float $timeout = 0.2): bool
{
    $c = @stream_socket_client(rsw_addr($host, $port), $errno, $errstr, $timeout);
    if ($c === false) {
        return false;
    }
    fclose($c);
    return true;
}

/** Pids (not zombies) whose process group is $pgid, read from /proc. */
function rsw_group_pids(int $pgid): array
{
    $pids = [];
    foreach (glob('/proc/[0-9]*/stat') ?: [] as $f) {
        $stat = @file_get_contents($f);
        if ($stat === false || ($p = strrpos($stat, ')')) === false) {
            continue;
        }
        $fields = explode(' ', substr($stat, $p + 2));
        // fields[0]=state fields[1]=ppid fields[2]=pgrp
        if ((int) ($fields[2] ?? -1) === $pgid && ($fields[0] ?? 'Z') !== 'Z' && ($fields[0] ?? 'X') !== 'X') {
            $pids[] = (int) basename(dirname($f));
        }
    }
    sort($pids);
    return $pids;
}

function rsw_pid_alive(int $pid): bool
{
    $stat = @file_get_contents("/proc/$pid/stat");
    if ($stat === false) {
        return false;
    }
    $state = substr($stat, strrpos($stat, ')') + 2, 1);
    return $state !== 'Z' && $state !== 'X';
}

/** Flush PHP output so a fork does not duplicate buffered output. */
function rsw_flush_output(): void
{
    while (ob_get_level() > 0) {
        ob_end_flush();
    }
    flush();
}

/** Point fds 1 and 2 of the current process at $file (used in forked children). */
function rsw_redirect_stdio(string $file): void
{
    fclose(STDOUT);
    fclose(STDERR);
    // fds 1 and 2 are now the lowest free descriptors, so these two opens take them.
    $GLOBALS['__rsw_stdio'] = [fopen($file, 'a'), fopen($file, 'a')];
}

/**
 * A server under test, run in a forked child in its own process group.
 *
 * $serverFn($port, $ready, $host) must build and start() the server; start() returning means the
 * server stopped, and the child then exits 0. Its stdout and stderr go to $this->logFile.
 */
final class ServerTest
{
    public int $port;
    public string $host;
    public string $logFile;
    public string $readyFile;
    public ?int $pid = null;
    public ?int $watchdogPid = null;
    /** Exit code of the child, or null if it died from a signal. */
    public ?int $exitCode = null;
    public ?int $termSignal = null;
    /** True when the child had to be SIGKILLed because it ignored SIGTERM within the timeout. */
    public bool $killed = false;
    /** Pids of the group that outlived the child after a graceful stop (then SIGKILLed). */
    public array $leftovers = [];
    private $serverFn;
    private array $opts;
    private int $parentPid;
    private bool $stopped = false;

    public function __construct(callable $serverFn, array $opts = [])
    {
        $this->serverFn = $serverFn;
        $this->opts = $opts + [
            'host' => RSW_HOST,
            'port' => null,
            'start_timeout' => 10.0,   // seconds to wait for the port
            'stop_timeout' => 8.0,     // seconds between SIGTERM and SIGKILL
            'hard_limit' => 60.0,      // watchdog kills the server group after this many seconds
            'ready_count' => 0,        // also wait for this many $ready() calls
            'wait_port' => true,       // false: only wait for ready_count $ready() calls
        ];
        $this->host = $this->opts['host'];
        $this->port = $this->opts['port'] ?? rsw_free_port($this->host);
        $this->logFile = tempnam(sys_get_temp_dir(), 'rsw_log_');
        $this->readyFile = tempnam(sys_get_temp_dir(), 'rsw_ready_');
        $this->parentPid = getmypid();
    }

    public function start(): self
    {
        rsw_flush_output();
        $pid = pcntl_fork();
        if ($pid < 0) {
            throw new RuntimeException('fork failed');
        }
        if ($pid === 0) {
            posix_setpgid(0, 0);
            rsw_redirect_stdio($this->logFile);
            $readyFile = $this->readyFile;
            $ready = static function () use ($readyFile): void {
                file_put_contents($readyFile, '1', FILE_APPEND);
            };
            ($this->serverFn)($this->port, $ready, $this->host);
            exit(0);
        }
        @posix_setpgid($pid, $pid);
        $this->pid = $pid;
        register_shutdown_function([$this, 'shutdownGuard']);
        $this->startWatchdog();

        $deadline = microtime(true) + $this->opts['start_timeout'];
        while (true) {
            if ($this->reap()) {
                throw new RuntimeException("server exited before it was ready ({$this->status()}); log:\n" . $this->log());
            }
            $readyOk = $this->opts['ready_count'] <= 0
                || strlen((string) @file_get_contents($this->readyFile)) >= $this->opts['ready_count'];
            if ($readyOk && (!$this->opts['wait_port'] || rsw_port_open($this->port, $this->host))) {
                return $this;
            }
            if (microtime(true) > $deadline) {
                $this->stop();
                throw new RuntimeException("server not ready after {$this->opts['start_timeout']}s; log:\n" . $this->log());
            }
            usleep(20000);
        }
    }

    private function startWatchdog(): void
    {
        $serverPid = $this->pid;
        $parent = $this->parentPid;
        $limit = (float) $this->opts['hard_limit'];
        $wd = pcntl_fork();
        if ($wd === 0) {
            rsw_redirect_stdio('/dev/null');
            $deadline = microtime(true) + $limit;
            while (posix_getppid() === $parent && microtime(true) < $deadline) {
                usleep(100000);
            }
            posix_kill(-$serverPid, SIGKILL);
            posix_kill($serverPid, SIGKILL);
            posix_kill(getmypid(), SIGKILL); // leave without running any PHP shutdown code
        }
        $this->watchdogPid = $wd > 0 ? $wd : null;
    }

    /** Non-blocking reap of the server child; true once it has exited. */
    public function reap(): bool
    {
        if ($this->exitCode !== null || $this->termSignal !== null) {
            return true;
        }
        if ($this->pid === null) {
            return false;
        }
        $r = pcntl_waitpid($this->pid, $st, WNOHANG);
        if ($r === $this->pid) {
            if (pcntl_wifexited($st)) {
                $this->exitCode = pcntl_wexitstatus($st);
            } elseif (pcntl_wifsignaled($st)) {
                $this->termSignal = pcntl_wtermsig($st);
            } else {
                return false;
            }
            return true;
        }
        if ($r === -1) {
            $this->termSignal = $this->termSignal ?? -1;
            return true;
        }
        return false;
    }

    public function alive(): bool
    {
        return !$this->reap();
    }

    public function signal(int $sig): bool
    {
        return $this->pid !== null && $this->alive() && posix_kill($this->pid, $sig);
    }

    /** Wait (bounded) for the child to exit on its own. */
    public function waitExit(float $timeout): bool
    {
        return rsw_wait_until(fn() => $this->reap(), $timeout);
    }

    /** Stop the server: $sig, wait up to stop_timeout, then SIGKILL the group. Returns status(). */
    public function stop(int $sig = SIGTERM): string
    {
        if ($this->stopped || $this->pid === null) {
            return $this->status();
        }
        $this->stopped = true;
        if (!$this->reap()) {
            posix_kill($this->pid, $sig);
            if (!$this->waitExit((float) $this->opts['stop_timeout'])) {
                $this->killed = true;
                posix_kill(-$this->pid, SIGKILL);
                posix_kill($this->pid, SIGKILL);
                $this->waitExit(5.0);
            }
        }
        // Workers and managers should be gone together with the master; give them a moment.
        if (!rsw_wait_until(fn() => rsw_group_pids($this->pid) === [], 3.0)) {
            $this->leftovers = rsw_group_pids($this->pid);
            posix_kill(-$this->pid, SIGKILL);
            rsw_wait_until(fn() => rsw_group_pids($this->pid) === [], 2.0);
        }
        if ($this->watchdogPid !== null) {
            posix_kill($this->watchdogPid, SIGKILL);
            pcntl_waitpid($this->watchdogPid, $st);
            $this->watchdogPid = null;
        }
        return $this->status();
    }

    /** "exit=N", "signal=N" or "running"; with " killed" when SIGKILL was needed. */
    public function status(): string
    {
        if ($this->exitCode !== null) {
            $s = "exit={$this->exitCode}";
        } elseif ($this->termSignal !== null) {
            $s = "signal={$this->termSignal}";
        } else {
            $s = 'running';
        }
        return $this->killed ? "$s killed" : $s;
    }

    public function log(): string
    {
        return (string) @file_get_contents($this->logFile);
    }

    /** How many times $ready() was called so far (e.g. how many workerStart events). */
    public function readyCount(): int
    {
        clearstatcache();
        return strlen((string) @file_get_contents($this->readyFile));
    }

    /** Pids in the server's process group right now (master, manager, workers). */
    public function groupPids(): array
    {
        return $this->pid === null ? [] : rsw_group_pids($this->pid);
    }

    /** Runs at the end of the test process: never leave a server behind. */
    public function shutdownGuard(): void
    {
        if (getmypid() !== $this->parentPid) {
            return; // inherited by a forked child: not ours to clean up
        }
        if (!$this->stopped) {
            $this->opts['stop_timeout'] = 2.0;
            $this->stop();
        }
        @unlink($this->readyFile);
        if (!getenv('RSW_KEEP_LOGS')) {
            @unlink($this->logFile);
        }
    }
}

/**
 * Fork a server with $serverFn($port, $ready, $host), run $clientFn($port, $server) against it,
 * then always stop it. Returns the stopped ServerTest (status(), log(), ...).
 */
function rsw_run_server(callable $serverFn, callable $clientFn, float $timeout = 10, array $opts = []): ServerTest
{
    $t = new ServerTest($serverFn, $opts + ['start_timeout' => $timeout]);
    $t->start();
    try {
        $clientFn($t->port, $t);
    } finally {
        $t->stop();
    }
    return $t;
}

/**
 * A PHP script run as a separate `php` process (with the extension under test) in its own
 * session, stdout+stderr to a log file. Used for scripts that must run unchanged.
 */
final class ScriptServer
{
    public int $port;
    public string $logFile;
    public ?int $pid = null;
    public ?int $exitCode = null;
    private $proc = null;
    private bool $stopped = false;
    private int $ownerPid;

    public function __construct(public string $script, int $port, public ?string $cwd = null, public array $extraArgs = [])
    {
        $this->port = $port;
        $this->logFile = tempnam(sys_get_temp_dir(), 'rsw_slog_');
        $this->ownerPid = getmypid();
    }

    public function start(float $timeout = 10.0, bool $waitPort = true): self
    {
        $cmd = array_merge(['setsid'], rsw_php_cmd(), $this->extraArgs, [$this->script]);
        $this->proc = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $this->logFile, 'a'], 2 => ['file', $this->logFile, 'a']], $pipes, $this->cwd);
        if (!is_resource($this->proc)) {
            throw new RuntimeException("cannot start {$this->script}");
        }
        $this->pid = proc_get_status($this->proc)['pid'];
        register_shutdown_function([$this, 'stop']);
        if ($waitPort) {
            $ok = rsw_wait_until(fn() => !$this->running() || rsw_port_open($this->port), $timeout);
            if (!$ok || !$this->running()) {
                $this->stop();
                throw new RuntimeException("script server not ready; log:\n" . $this->log());
            }
        }
        return $this;
    }

    public function running(): bool
    {
        if ($this->proc === null || $this->exitCode !== null) {
            return false;
        }
        $st = proc_get_status($this->proc);
        if (!$st['running']) {
            $this->exitCode = $st['signaled'] ? 128 + $st['termsig'] : $st['exitcode'];
            return false;
        }
        return true;
    }

    /** Wait (bounded) for the process to exit by itself; returns its exit code or null. */
    public function wait(float $timeout): ?int
    {
        rsw_wait_until(fn() => !$this->running(), $timeout);
        return $this->running() ? null : $this->exitCode;
    }

    public function stop(int $sig = SIGTERM, float $timeout = 8.0): ?int
    {
        if ($this->stopped || $this->proc === null) {
            return $this->exitCode;
        }
        $this->stopped = true;
        if ($this->running()) {
            posix_kill($this->pid, $sig);
            if (!rsw_wait_until(fn() => !$this->running(), $timeout)) {
                posix_kill(-$this->pid, SIGKILL);
                posix_kill($this->pid, SIGKILL);
                rsw_wait_until(fn() => !$this->running(), 5.0);
            }
        }
        if (!rsw_wait_until(fn() => rsw_group_pids($this->pid) === [], 3.0)) {
            posix_kill(-$this->pid, SIGKILL);
        }
        proc_close($this->proc);
        return $this->exitCode;
    }

    public function __destruct()
    {
        if ($this->ownerPid === getmypid() && !getenv('RSW_KEEP_LOGS')) {
            @unlink($this->logFile);
        }
    }

    public function log(): string
    {
        return (string) @file_get_contents($this->logFile);
    }
}

/**
 * A raw HTTP/1.x client connection over a stream socket, with bounded reads and a parser that
 * understands Content-Length, chunked, close-delimited and interim (1xx) responses.
 */
final class RswConn
{
    /** @var resource|null */
    public $sock;
    public string $buf = '';
    public bool $eof = false;

    public function __construct(public int $port, public string $host = RSW_HOST, float $timeout = 5.0)
    {
        $s = @stream_socket_client(rsw_addr($host, $port), $errno, $errstr, $timeout);
        if ($s === false) {
            throw new RuntimeException("connect $host:$port failed: $errstr");
        }
        stream_set_blocking($s, false);
        $this->sock = $s;
    }

    public function send(string $bytes): bool
    {
        $deadline = microtime(true) + 5.0;
        while ($bytes !== '') {
            $n = @fwrite($this->sock, $bytes);
            if ($n === false) {
                return false;
            }
            if ($n === 0) {
                $r = null;
                $w = [$this->sock];
                $e = null;
                if (microtime(true) > $deadline) {
                    return false;
                }
                @stream_select($r, $w, $e, 0, 100000);
                continue;
            }
            $bytes = (string) substr($bytes, $n);
        }
        return true;
    }

    /** Read whatever arrives within $timeout into the buffer. Returns false on EOF/reset. */
    public function fill(float $timeout): bool
    {
        if ($this->eof) {
            return false;
        }
        $r = [$this->sock];
        $w = $e = null;
        $sec = (int) $timeout;
        $usec = (int) (($timeout - $sec) * 1e6);
        $n = @stream_select($r, $w, $e, $sec, $usec);
        if ($n === false || $n === 0) {
            return true; // timeout, still open as far as we know
        }
        $data = @fread($this->sock, 65536);
        if ($data === false || $data === '') {
            if ($data === false || feof($this->sock)) {
                $this->eof = true;
                return false;
            }
            return true;
        }
        $this->buf .= $data;
        return true;
    }

    private function need(callable $have, float $deadline): bool
    {
        while (!$have()) {
            $left = $deadline - microtime(true);
            if ($left <= 0 || !$this->fill(min($left, 0.5))) {
                return (bool) $have();
            }
        }
        return true;
    }

    /**
     * Read one response. Returns null when nothing (complete) arrived before EOF/timeout.
     * Keys: version, status, reason, headers (lowercase name => value, or list when repeated),
     * header_lines (list of [name, value] as sent), body, chunked, chunk_sizes, interim (list of 1xx status lines), raw.
     */
    public function readResponse(bool $head = false, float $timeout = 5.0): ?array
    {
        $deadline = microtime(true) + $timeout;
        $interim = [];
        $start = strlen($this->buf);
        while (true) {
            if (!$this->need(fn() => str_contains($this->buf, "\r\n\r\n"), $deadline)) {
                return null;
            }
            $p = strpos($this->buf, "\r\n\r\n");
            $headBlock = substr($this->buf, 0, $p);
            $rawStart = $this->buf;
            $this->buf = (string) substr($this->buf, $p + 4);
            $lines = explode("\r\n", $headBlock);
            $statusLine = array_shift($lines);
            if (!preg_match('~^(HTTP/\d\.\d) (\d{3})(?: (.*))?$~', $statusLine, $m)) {
                return ['version' => null, 'status' => 0, 'reason' => $statusLine, 'headers' => [], 'header_lines' => [],
                    'body' => $this->buf, 'chunked' => false, 'chunk_sizes' => [], 'interim' => $interim, 'raw' => $rawStart];
            }
            $status = (int) $m[2];
            if ($status >= 100 && $status < 200 && $status !== 101) {
                $interim[] = $statusLine;
                continue;
            }
            break;
        }
        $headers = [];
        $headerLines = [];
        foreach ($lines as $line) {
            $c = strpos($line, ':');
            if ($c === false) {
                continue;
            }
            $name = substr($line, 0, $c);
            $value = trim(substr($line, $c + 1));
            $headerLines[] = [$name, $value];
            $k = strtolower($name);
            if (isset($headers[$k])) {
                $headers[$k] = array_merge((array) $headers[$k], [$value]);
            } else {
                $headers[$k] = $value;
            }
        }
        $body = '';
        $chunked = false;
        $sizes = [];
        $te = strtolower(implode(',', (array) ($headers['transfer-encoding'] ?? '')));
        if ($head || $status === 204 || $status === 304) {
            // no body
        } elseif (str_contains($te, 'chunked')) {
            $chunked = true;
            while (true) {
                if (!$this->need(fn() => str_contains($this->buf, "\r\n"), $deadline)) {
                    return null;
                }
                $lp = strpos($this->buf, "\r\n");
                $size = hexdec(trim(explode(';', substr($this->buf, 0, $lp))[0]));
                $sizes[] = $size;
                if ($size === 0) {
                    // skip trailers up to the empty line
                    if (!$this->need(fn() => str_contains(substr($this->buf, $lp), "\r\n\r\n"), $deadline)) {
                        return null;
                    }
                    $this->buf = (string) substr($this->buf, strpos($this->buf, "\r\n\r\n", $lp) + 4);
                    break;
                }
                if (!$this->need(fn() => strlen($this->buf) >= $lp + 2 + $size + 2, $deadline)) {
                    return null;
                }
                $body .= substr($this->buf, $lp + 2, $size);
                $this->buf = (string) substr($this->buf, $lp + 2 + $size + 2);
            }
        } elseif (isset($headers['content-length'])) {
            $len = (int) (is_array($headers['content-length']) ? $headers['content-length'][0] : $headers['content-length']);
            if (!$this->need(fn() => strlen($this->buf) >= $len, $deadline)) {
                return null;
            }
            $body = substr($this->buf, 0, $len);
            $this->buf = (string) substr($this->buf, $len);
        } else {
            while ($this->fill(max(0.01, min(0.5, $deadline - microtime(true))))) {
                if (microtime(true) > $deadline) {
                    break;
                }
            }
            $body = $this->buf;
            $this->buf = '';
        }
        return ['version' => $m[1], 'status' => $status, 'reason' => $m[3] ?? '', 'headers' => $headers,
            'header_lines' => $headerLines, 'body' => $body, 'chunked' => $chunked, 'chunk_sizes' => $sizes,
            'interim' => $interim, 'raw' => $headBlock];
    }

    /** Read until the peer closes or $timeout passes; returns everything read. */
    public function readAll(float $timeout = 3.0): string
    {
        $deadline = microtime(true) + $timeout;
        while (microtime(true) < $deadline && $this->fill(min(0.5, max(0.01, $deadline - microtime(true))))) {
        }
        $out = $this->buf;
        $this->buf = '';
        return $out;
    }

    /** True when the peer closes (EOF or reset) within $timeout, after draining any pending data. */
    public function closedByPeer(float $timeout = 3.0): bool
    {
        $deadline = microtime(true) + $timeout;
        while (microtime(true) < $deadline) {
            if (!$this->fill(min(0.2, max(0.01, $deadline - microtime(true))))) {
                return true;
            }
        }
        return false;
    }

    public function close(): void
    {
        if ($this->sock) {
            @fclose($this->sock);
            $this->sock = null;
        }
    }

    public function __destruct()
    {
        $this->close();
    }
}

/** Build a request string. $headers is name => value (or a list of "Name: value" lines). */
function rsw_build_request(string $method, string $path, array $headers = [], ?string $body = null, string $version = 'HTTP/1.1', ?int $port = null): string
{
    $lines = ["$method $path $version"];
    $names = [];
    foreach ($headers as $k => $v) {
        if (is_int($k)) {
            $lines[] = $v;
            $names[] = strtolower(trim(explode(':', $v, 2)[0]));
        } else {
            $lines[] = "$k: $v";
            $names[] = strtolower($k);
        }
    }
    if (!in_array('host', $names, true)) {
        $lines[] = 'Host: 127.0.0.1' . ($port ? ":$port" : '');
    }
    if ($body !== null && !in_array('content-length', $names, true) && !in_array('transfer-encoding', $names, true)) {
        $lines[] = 'Content-Length: ' . strlen($body);
    }
    return implode("\r\n", $lines) . "\r\n\r\n" . ($body ?? '');
}

/** One request on a fresh connection (Connection: close unless given). Returns the response array (or null). */
function rsw_request(int $port, string $method, string $path, array $headers = [], ?string $body = null, string $host = RSW_HOST, float $timeout = 5.0): ?array
{
    $has = array_map('strtolower', array_keys($headers));
    if (!in_array('connection', $has, true)) {
        $headers['Connection'] = 'close';
    }
    try {
        $c = new RswConn($port, $host);
    } catch (RuntimeException $e) {
        return null; // connection refused: the caller sees "no response"
    }
    $c->send(rsw_build_request($method, $path, $headers, $body, 'HTTP/1.1', $port));
    $r = $c->readResponse(strtoupper($method) === 'HEAD', $timeout);
    $c->close();
    return $r;
}

/** GET on a fresh connection: [status, headers (lowercased names), body, full response array]. */
function rsw_http_get(int $port, string $path = '/', array $headers = [], string $host = RSW_HOST): array
{
    $r = rsw_request($port, 'GET', $path, $headers, null, $host);
    if ($r === null) {
        return [0, [], '', null];
    }
    return [$r['status'], $r['headers'], $r['body'], $r];
}

/** Send raw bytes on a fresh connection and read until the server closes or $readTimeout passes. */
function rsw_raw(int $port, string $bytes, float $readTimeout = 3.0, string $host = RSW_HOST): string
{
    $c = new RswConn($port, $host);
    $c->send($bytes);
    $out = $c->readAll($readTimeout);
    $c->close();
    return $out;
}

/** Run the curl binary (bounded by --max-time). Returns ['code' => exit code, 'out' => stdout, 'err' => stderr]. */
function rsw_curl(array $args, float $maxTime = 10.0): array
{
    $cmd = array_merge(['curl', '-sS', '--max-time', (string) $maxTime, '--noproxy', '*'], $args);
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    $err = stream_get_contents($pipes[2]);
    fclose($pipes[1]);
    fclose($pipes[2]);
    $code = proc_close($p);
    return ['code' => $code, 'out' => $out, 'err' => $err];
}

/** A header value from a response array (first value when repeated), or null. */
function rsw_header(?array $resp, string $name): ?string
{
    $v = $resp['headers'][strtolower($name)] ?? null;
    return is_array($v) ? $v[0] : $v;
}

/** All values of a (possibly repeated) header from a response array. */
function rsw_header_all(?array $resp, string $name): array
{
    return (array) ($resp['headers'][strtolower($name)] ?? []);
}

/** Print "label: OK" or "label: FAIL (details)"; the EXPECT section lists the OK lines. */
function rsw_check(string $label, bool $cond, mixed $details = null): void
{
    echo $label, ': ', $cond ? 'OK' : 'FAIL' . ($details !== null ? ' ' . json_encode($details, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE | JSON_PARTIAL_OUTPUT_ON_ERROR) : ''), "\n";
}

/**
 * A $serverFn for ServerTest/rsw_run_server: an Http\Server on the given host/port with $settings
 * (worker_num defaults to 1), extra event callbacks, and $onRequest registered as given.
 * Inside callbacks, rsw_server() returns the server object.
 */
function rsw_http_server_fn(callable $onRequest, array $settings = [], int $mode = SWOOLE_BASE, array $events = []): Closure
{
    return static function (int $port, callable $ready, string $host) use ($onRequest, $settings, $mode, $events): void {
        $sockType = str_contains($host, ':') ? SWOOLE_SOCK_TCP6 : SWOOLE_SOCK_TCP;
        $http = new Swoole\Http\Server($host, $port, $mode, $sockType);
        $GLOBALS['__rsw_server'] = $http;
        $http->set($settings + ['worker_num' => 1]);
        // workerStart always reports readiness (ServerTest 'ready_count' waits for N workers).
        $userStart = $events['workerStart'] ?? null;
        unset($events['workerStart']);
        $http->on('workerStart', static function (...$args) use ($ready, $userStart): void {
            if ($userStart !== null) {
                $userStart(...$args);
            }
            $ready();
        });
        foreach ($events as $name => $cb) {
            $http->on($name, $cb);
        }
        $http->on('request', $onRequest);
        $http->start();
    };
}

/** The server object created by rsw_http_server_fn() (valid in its callbacks). */
function rsw_server(): Swoole\Server
{
    return $GLOBALS['__rsw_server'];
}

/** A fresh temp directory, removed (recursively) when the test process ends. */
function rsw_tmpdir(string $prefix = 'rsw_dir_'): string
{
    $dir = sys_get_temp_dir() . '/' . $prefix . getmypid() . '_' . bin2hex(random_bytes(4));
    mkdir($dir, 0777, true);
    $owner = getmypid();
    register_shutdown_function(static function () use ($dir, $owner): void {
        if (getmypid() === $owner) {
            exec('rm -rf ' . escapeshellarg($dir));
        }
    });
    return $dir;
}

/** A fresh temp file, removed when the test process ends (even after an uncaught exception). */
function rsw_tempfile(string $prefix = 'rsw_tmp_'): string
{
    $file = tempnam(sys_get_temp_dir(), $prefix);
    $owner = getmypid();
    register_shutdown_function(static function () use ($file, $owner): void {
        if (getmypid() === $owner) {
            @unlink($file);
        }
    });
    return $file;
}
