<?php
// Test services: a private redis-server or MariaDB on a free 127.0.0.1 port with its data under /tmp, stopped by pid.
//
// API (all throw RuntimeException when the service cannot start):
//   rsw_ext_args(['redis', 'pdo_mysql', 'mysqli', 'curl'])  -> ['-d', 'extension=...', ...] for child PHPs run with -n
//                                                            (dependencies first: igbinary, mysqlnd, pdo; skips built-ins)
//   rsw_have_ext('pdo_mysql'): bool       whether a child `php -n` with rsw_ext_args() can load it
//   rsw_have_redis(), rsw_have_mariadb(), rsw_have_php_fpm(), rsw_have_nginx(): bool   binaries exist (--SKIPIF--)
//   $f = RswPhpFpm::startIn($docroot); $n = RswNginx::proxyTo($f->port, $docroot)   php-fpm, and nginx in front of it
//   $r = RswRedis::start();   $r->port, $r->pid, $r->stop(), $r->restart() (same port, new process)
//   $m = RswMariaDB::start(); $m->port, $m->pid, $m->dsn('test'), $m->user ('root', no password: the server
//                             runs with --skip-grant-tables), $m->stop(), $m->restart(); a database `test` exists.
// Both are also stopped by a shutdown function if the test forgets, and killed by pid only.

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

/** Which shared extensions each extension needs loaded before it. */
const RSW_EXT_DEPS = [
    'redis' => ['igbinary', 'redis'],
    'pdo_mysql' => ['mysqlnd', 'pdo', 'pdo_mysql'],
    'mysqli' => ['mysqlnd', 'mysqli'],
    'curl' => ['curl'],
    'pdo_sqlite' => ['pdo', 'pdo_sqlite'],
];

/** `-d extension=X` arguments for a child `php -n` that must load $names (each with its dependencies, once, in order). */
function rsw_ext_args(array $names): array
{
    $dir = (string) ini_get('extension_dir');
    $seen = [];
    $args = [];
    foreach ($names as $name) {
        foreach (RSW_EXT_DEPS[$name] ?? [$name] as $ext) {
            if (isset($seen[$ext])) {
                continue;
            }
            $seen[$ext] = true;
            // Only shared extensions need loading; a missing optional dependency (igbinary) is skipped.
            if (file_exists("$dir/$ext.so")) {
                $args[] = '-d';
                $args[] = "extension=$ext";
            }
        }
    }
    return $args;
}

/** Whether `php -n` with rsw_ext_args([$name]) has the extension. */
function rsw_have_ext(string $name): bool
{
    $cmd = escapeshellarg(PHP_BINARY) . ' -n ' . implode(' ', array_map('escapeshellarg', rsw_ext_args([$name])))
        . ' -r ' . escapeshellarg('echo extension_loaded(' . var_export($name, true) . ') ? 1 : 0;') . ' 2>/dev/null';
    return trim((string) shell_exec($cmd)) === '1';
}

function rsw_find_binary(array $candidates): ?string
{
    foreach ($candidates as $c) {
        if (is_executable($c)) {
            return $c;
        }
        $p = trim((string) shell_exec('command -v ' . escapeshellarg(basename($c)) . ' 2>/dev/null'));
        if ($p !== '' && is_executable($p)) {
            return $p;
        }
    }
    return null;
}

function rsw_have_redis(): bool
{
    return rsw_find_binary(['/usr/bin/redis-server']) !== null;
}

function rsw_have_mariadb(): bool
{
    return rsw_find_binary(['/usr/sbin/mariadbd', '/usr/sbin/mysqld']) !== null;
}

/** A child service process started with proc_open and stopped by its pid (SIGTERM, bounded wait, SIGKILL). */
abstract class RswService
{
    public int $port;
    public int $pid = 0;
    public string $dir;
    /** @var resource|null */
    protected $proc = null;

    abstract protected function command(): array;

    abstract protected function ready(): bool;

    protected function __construct()
    {
        $this->port = rsw_free_port();
        $this->dir = rsw_tmpdir('rsw_svc_');
    }

    /** Starts one; $prepare (if given) sets it up first (config files, options) once its port and dir exist. */
    public static function start(?callable $prepare = null): static
    {
        $s = new static();
        if ($prepare !== null) {
            $prepare($s);
        }
        $s->launch();
        register_shutdown_function(fn() => $s->stop());
        return $s;
    }

    protected function launch(): void
    {
        $log = $this->dir . '/service.log';
        $this->proc = proc_open($this->command(), [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes, $this->dir);
        if (!is_resource($this->proc)) {
            throw new RuntimeException(static::class . ': proc_open failed');
        }
        $this->pid = (int) proc_get_status($this->proc)['pid'];
        if (!rsw_wait_until(fn() => $this->ready(), 15)) {
            $tail = @file_get_contents($log);
            $this->stop();
            throw new RuntimeException(static::class . " did not start on port {$this->port}: " . substr((string) $tail, -800));
        }
    }

    /** Stops the process (by pid only); safe to call twice. */
    public function stop(): void
    {
        if ($this->proc === null) {
            return;
        }
        if (proc_get_status($this->proc)['running']) {
            posix_kill($this->pid, SIGTERM);
            if (!rsw_wait_until(fn() => !proc_get_status($this->proc)['running'], 10)) {
                posix_kill($this->pid, SIGKILL);
                rsw_wait_until(fn() => !proc_get_status($this->proc)['running'], 5);
            }
        }
        proc_close($this->proc);
        $this->proc = null;
    }

    /** Kills the process at once (SIGKILL), as a crash would. */
    public function kill(): void
    {
        if ($this->proc !== null) {
            posix_kill($this->pid, SIGKILL);
            rsw_wait_until(fn() => !proc_get_status($this->proc)['running'], 5);
            proc_close($this->proc);
            $this->proc = null;
        }
    }

    /** Stops and starts again on the same port (as an operator's restart). */
    public function restart(): void
    {
        $this->stop();
        $this->launch();
    }
}

final class RswRedis extends RswService
{
    protected function command(): array
    {
        return [rsw_find_binary(['/usr/bin/redis-server']) ?? 'redis-server', '--port', (string) $this->port, '--bind', '127.0.0.1',
            '--save', '', '--appendonly', 'no', '--dir', $this->dir, '--maxclients', '10000'];
    }

    protected function ready(): bool
    {
        $s = @stream_socket_client("tcp://127.0.0.1:{$this->port}", $e, $es, 0.2);
        if ($s === false) {
            return false;
        }
        fwrite($s, "PING\r\n");
        stream_set_timeout($s, 1);
        $ok = trim((string) fgets($s)) === '+PONG';
        fclose($s);
        return $ok;
    }
}

final class RswMariaDB extends RswService
{
    public string $user = 'root';
    public string $password = '';

    protected function command(): array
    {
        $cmd = [rsw_find_binary(['/usr/sbin/mariadbd', '/usr/sbin/mysqld']) ?? 'mariadbd', '--no-defaults',
            '--datadir=' . $this->dir . '/data', '--port=' . $this->port, '--bind-address=127.0.0.1',
            '--socket=' . $this->dir . '/mysqld.sock', '--pid-file=' . $this->dir . '/mysqld.pid',
            '--skip-grant-tables', '--innodb-buffer-pool-size=16M', '--max-connections=2000',
            '--log-error=' . $this->dir . '/error.log'];
        if (posix_getuid() === 0) {
            $cmd[] = '--user=root';
        }
        return $cmd;
    }

    protected function launch(): void
    {
        @mkdir($this->dir . '/data', 0700, true);
        parent::launch();
        // A `test` database, as the tests' DSNs expect.
        $this->query('CREATE DATABASE IF NOT EXISTS test');
    }

    protected function ready(): bool
    {
        $s = @stream_socket_client("tcp://127.0.0.1:{$this->port}", $e, $es, 0.2);
        if ($s === false) {
            return false;
        }
        stream_set_timeout($s, 1);
        $greeting = fread($s, 5);
        fclose($s);
        return is_string($greeting) && strlen($greeting) === 5;
    }

    public function dsn(string $db = 'test'): string
    {
        return "mysql:host=127.0.0.1;port={$this->port};dbname=$db;charset=utf8mb4";
    }

    /** Runs one statement from this (test) process through a child PHP with pdo_mysql. */
    public function query(string $sql): string
    {
        $code = '$p = new PDO(' . var_export("mysql:host=127.0.0.1;port={$this->port}", true) . ', "root", "");'
            . '$s = $p->query(' . var_export($sql, true) . '); echo json_encode($s ? $s->fetchAll(PDO::FETCH_NUM) : null);';
        $cmd = array_merge([PHP_BINARY, '-n'], rsw_ext_args(['pdo_mysql']), ['-r', $code]);
        $out = shell_exec(implode(' ', array_map('escapeshellarg', $cmd)) . ' 2>&1');
        return (string) $out;
    }
}

function rsw_have_php_fpm(): bool
{
    return rsw_find_binary(['/usr/sbin/php-fpm' . PHP_MAJOR_VERSION . '.' . PHP_MINOR_VERSION, '/usr/sbin/php-fpm']) !== null;
}

function rsw_have_nginx(): bool
{
    return rsw_find_binary(['/usr/sbin/nginx']) !== null;
}

/**
 * php-fpm on a free 127.0.0.1 port, static pool of 4, no php.ini (-n); RswPhpFpm::startIn($docroot) starts it
 * for that document root.
 */
final class RswPhpFpm extends RswService
{
    public string $root = '/';

    public static function startIn(string $root): self
    {
        return self::start(function (self $s) use ($root): void {
            $s->root = $root;
        });
    }

    protected function command(): array
    {
        $conf = $this->dir . '/php-fpm.conf';
        file_put_contents($conf, implode("\n", [
            '[global]',
            'pid = ' . $this->dir . '/php-fpm.pid',
            'error_log = ' . $this->dir . '/php-fpm.log',
            'daemonize = no',
            '[www]',
            'listen = 127.0.0.1:' . $this->port,
            'pm = static',
            'pm.max_children = 4',
            'clear_env = no',
            'catch_workers_output = yes',
            'php_admin_value[upload_tmp_dir] = ' . $this->dir,
            '',
        ]));
        $bin = rsw_find_binary(['/usr/sbin/php-fpm' . PHP_MAJOR_VERSION . '.' . PHP_MINOR_VERSION, '/usr/sbin/php-fpm']) ?? 'php-fpm';
        $cmd = [$bin, '-n', '-F', '-y', $conf];
        if (posix_getuid() === 0) {
            $cmd[] = '-R';
        }
        return $cmd;
    }

    protected function ready(): bool
    {
        return rsw_port_open($this->port);
    }
}

/** nginx on a free port passing every request to php-fpm at $fpmPort with $root as document root (index.php). */
final class RswNginx extends RswService
{
    public static function proxyTo(int $fpmPort, string $root): self
    {
        return self::start(function (self $s) use ($fpmPort, $root): void {
            $conf = $s->dir . '/nginx.conf';
            file_put_contents($conf, <<<CONF
daemon off;
master_process off;
worker_processes 1;
pid {$s->dir}/nginx.pid;
error_log {$s->dir}/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path {$s->dir}/body;
    fastcgi_temp_path {$s->dir}/fastcgi;
    proxy_temp_path {$s->dir}/proxy;
    uwsgi_temp_path {$s->dir}/uwsgi;
    scgi_temp_path {$s->dir}/scgi;
    client_max_body_size 16m;
    server {
        listen 127.0.0.1:{$s->port};
        root $root;
        index index.php;
        location / {
            try_files \$uri \$uri/ /index.php\$is_args\$args;
        }
        location ~ \.php$ {
            fastcgi_pass 127.0.0.1:$fpmPort;
            fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
            fastcgi_param QUERY_STRING \$query_string;
            fastcgi_param REQUEST_METHOD \$request_method;
            fastcgi_param CONTENT_TYPE \$content_type;
            fastcgi_param CONTENT_LENGTH \$content_length;
            fastcgi_param SCRIPT_NAME \$fastcgi_script_name;
            fastcgi_param REQUEST_URI \$request_uri;
            fastcgi_param DOCUMENT_URI \$document_uri;
            fastcgi_param DOCUMENT_ROOT \$document_root;
            fastcgi_param SERVER_PROTOCOL \$server_protocol;
            fastcgi_param GATEWAY_INTERFACE CGI/1.1;
            fastcgi_param REMOTE_ADDR \$remote_addr;
            fastcgi_param REMOTE_PORT \$remote_port;
            fastcgi_param SERVER_ADDR \$server_addr;
            fastcgi_param SERVER_PORT \$server_port;
            fastcgi_param SERVER_NAME \$server_name;
            fastcgi_param REDIRECT_STATUS 200;
        }
    }
}
CONF);
        });
    }

    protected function command(): array
    {
        return [rsw_find_binary(['/usr/sbin/nginx']) ?? 'nginx', '-p', $this->dir, '-c', $this->dir . '/nginx.conf'];
    }

    protected function ready(): bool
    {
        return rsw_port_open($this->port);
    }
}
