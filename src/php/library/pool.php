<?php
// rswoole library: Swoole\ConnectionPool and the Swoole\Database pools, configs and reconnecting proxies.
// Our own implementation of the API Swoole 6.2.2's PHP library documents; compiled into the module at request start.
//
// A pool is a Channel of idle connections plus a count of the connections it has made (never more than $size).
// get() makes a connection only when none is idle and the count allows; put(null) says "the one I had is broken":
// the count drops and a fresh one takes its place, so a broken connection is never handed out again.

namespace Swoole {
    use Swoole\Coroutine\Channel;

    class ConnectionPool
    {
        public const DEFAULT_SIZE = 64;

        protected ?Channel $pool;

        /** @var callable */
        protected $constructor;

        protected int $size;

        /** Connections made and not yet known broken (idle in the channel or lent out). */
        protected int $num = 0;

        public function __construct(callable $constructor, int $size = self::DEFAULT_SIZE, protected ?string $proxy = null)
        {
            $this->size = $size;
            $this->pool = new Channel($size);
            $this->constructor = $constructor;
        }

        /** Makes connections until the pool holds $size of them. */
        public function fill(): void
        {
            while ($this->num < $this->size) {
                $this->make();
            }
        }

        /**
         * An idle connection, a new one while fewer than $size exist, or else waits up to $timeout seconds
         * (-1: no limit) for one to be put back; false when the wait times out.
         */
        public function get(float $timeout = -1)
        {
            if ($this->pool === null) {
                throw new \RuntimeException('Pool has been closed');
            }
            if ($this->num < $this->size && $this->pool->isEmpty()) {
                $this->make();
            }
            return $this->pool->pop($timeout);
        }

        /** Gives a connection back; null means the borrowed one is broken and is replaced. */
        public function put($connection): void
        {
            if ($this->pool === null) {
                return;
            }
            if ($connection === null) {
                $this->num--;
                $this->make();
                return;
            }
            $this->pool->push($connection);
        }

        /** Closes the pool: idle connections are dropped and get() throws from now on. */
        public function close(): void
        {
            if ($this->pool !== null) {
                $this->pool->close();
            }
            $this->pool = null;
            $this->num = 0;
        }

        protected function make(): void
        {
            $this->num++;
            try {
                $connection = $this->proxy ? new $this->proxy($this->constructor) : ($this->constructor)();
            } catch (\Throwable $e) {
                $this->num--;
                throw $e;
            }
            $this->put($connection);
        }
    }
}

namespace Swoole\Database {
    use Swoole\ConnectionPool;

    class ObjectProxy extends \Swoole\ObjectProxy
    {
        final public function __clone(): void
        {
            throw new \Error('Trying to clone an uncloneable database proxy object');
        }
    }

    /** Whether an exception means the connection to the server is gone (so reconnecting can help). */
    class DetectsLostConnections
    {
        /** Message fragments of MySQL/MariaDB, PostgreSQL, SQLite, SQL Server and PDO for a lost connection. */
        private const ERROR_MESSAGES = [
            'server has gone away',
            'no connection to the server',
            'Lost connection',
            'is dead or not enabled',
            'Error while sending',
            'decryption failed or bad record mac',
            'server closed the connection unexpectedly',
            'SSL connection has been closed unexpectedly',
            'Error writing data to the connection',
            'Resource deadlock avoided',
            'Transaction() on null',
            'child connection forced to terminate due to client_idle_limit',
            'query_wait_timeout',
            'reset by peer',
            'Physical connection is not usable',
            'TCP Provider: Error code 0x68',
            'ORA-03114',
            'Packets out of order. Expected',
            'Adaptive Server connection failed',
            'Communication link failure',
            'connection is no longer usable',
            'Login timeout expired',
            'SQLSTATE[HY000] [2002] Connection refused',
            'running with the --read-only option so it cannot execute this statement',
            'The connection is broken and recovery is not possible. The connection is marked by the client driver as unrecoverable. No attempt was made to restore the connection.',
            'SQLSTATE[HY000] [2002] php_network_getaddresses: getaddrinfo failed: Try again',
            'SQLSTATE[HY000] [2002] php_network_getaddresses: getaddrinfo failed: Name or service not known',
            'SQLSTATE[HY000]: General error: 7 SSL SYSCALL error: EOF detected',
            'SQLSTATE[HY000] [2002] Connection timed out',
            'SSL: Connection timed out',
            'SQLSTATE[HY000]: General error: 1105 The last transaction was aborted due to Seamless Scaling. Please retry.',
            'Temporary failure in name resolution',
            'SSL: Broken pipe',
            'SQLSTATE[08S01]: Communication link failure',
            'SQLSTATE[08006] [7] could not connect to server: Connection refused Is the server running on host',
            'SQLSTATE[HY000]: General error: 7 SSL SYSCALL error: No route to host',
            'The client was disconnected by the server because of inactivity. See wait_timeout and interactive_timeout for configuring this behavior.',
            'SQLSTATE[08006] [7] could not translate host name',
            'TCP Provider: Error code 0x274C',
            'SQLSTATE[HY000] [2002] No such file or directory',
            'SSL: Operation timed out',
            'Reason: Server is in script upgrade mode. Only administrator can connect at this time.',
            'SSL: Handshake timed out',
            'SQLSTATE[08006] [7] SSL error: sslv3 alert unexpected message',
            'SQLSTATE[08006] [7] unrecognized SSL error code:',
            'SQLSTATE[HY000] [2002] No connection could be made because the target machine actively refused it',
            'SQLSTATE[HY000] [2002] A connection attempt failed because the connected party did not properly respond after a period of time, or established connection failed because connected host has failed to respond',
            'SQLSTATE[HY000] [2002] Network is unreachable',
            'SQLSTATE[HY000] [2002] The requested address is not valid in its context',
            'SQLSTATE[HY000] [2002] A socket operation was attempted to an unreachable network',
            'SQLSTATE[HY000] [2002] Operation now in progress',
            'SQLSTATE[HY000] [2002] Operation in progress',
            'SQLSTATE[HY000]: General error: 3989',
            'went away',
            'No such file or directory',
            'server is shutting down',
            'failed to connect to',
            'Channel connection is closed',
            'Connection lost',
            'Broken pipe',
            'SQLSTATE[25006]: Read only sql transaction: 7',
        ];

        public static function causedByLostConnection(\Throwable $e): bool
        {
            $message = $e->getMessage();
            foreach (self::ERROR_MESSAGES as $fragment) {
                if (stripos($message, $fragment) !== false) {
                    return true;
                }
            }
            return false;
        }
    }

    class PDOConfig
    {
        public const DRIVER_MYSQL = 'mysql';

        protected string $driver = self::DRIVER_MYSQL;
        protected string $host = '127.0.0.1';
        protected int $port = 3306;
        protected ?string $unixSocket = null;
        protected string $dbname = 'test';
        protected string $charset = 'utf8mb4';
        protected string $username = 'root';
        protected string $password = 'root';
        protected array $options = [];

        public function getDriver(): string
        {
            return $this->driver;
        }

        public function withDriver(string $driver): self
        {
            $this->driver = $driver;
            return $this;
        }

        public function getHost(): string
        {
            return $this->host;
        }

        public function withHost(string $host): self
        {
            $this->host = $host;
            return $this;
        }

        public function getPort(): int
        {
            return $this->port;
        }

        public function hasUnixSocket(): bool
        {
            return !empty($this->unixSocket);
        }

        public function getUnixSocket(): ?string
        {
            return $this->unixSocket;
        }

        public function withUnixSocket(?string $unixSocket): self
        {
            $this->unixSocket = $unixSocket;
            return $this;
        }

        public function withPort(int $port): self
        {
            $this->port = $port;
            return $this;
        }

        public function getDbname(): string
        {
            return $this->dbname;
        }

        public function withDbname(string $dbname): self
        {
            $this->dbname = $dbname;
            return $this;
        }

        public function getCharset(): string
        {
            return $this->charset;
        }

        public function withCharset(string $charset): self
        {
            $this->charset = $charset;
            return $this;
        }

        public function getUsername(): string
        {
            return $this->username;
        }

        public function withUsername(string $username): self
        {
            $this->username = $username;
            return $this;
        }

        public function getPassword(): string
        {
            return $this->password;
        }

        public function withPassword(string $password): self
        {
            $this->password = $password;
            return $this;
        }

        public function getOptions(): array
        {
            return $this->options;
        }

        public function withOptions(array $options): self
        {
            $this->options = $options;
            return $this;
        }

        /** The PDO drivers a pool can use here (those PDO has, of mysql, pgsql, oci and sqlite). */
        public static function getAvailableDrivers(): array
        {
            $known = ['mysql', 'pgsql', 'oci', 'sqlite'];
            return class_exists(\PDO::class) ? array_values(array_intersect($known, \PDO::getAvailableDrivers())) : [];
        }
    }

    /** PDO: each connection comes wrapped in a PDOProxy, which reconnects when the server went away. */
    class PDOPool extends ConnectionPool
    {
        public function __construct(protected PDOConfig $config, int $size = self::DEFAULT_SIZE)
        {
            parent::__construct(function () {
                $driver = $this->config->getDriver();
                $dsn = $this->createDSN($driver);
                if ($driver === 'sqlite') {
                    return new \PDO($dsn);
                }
                return new \PDO($dsn, $this->config->getUsername(), $this->config->getPassword(), $this->config->getOptions());
            }, $size, PDOProxy::class);
        }

        public function get(float $timeout = -1)
        {
            $pdo = parent::get($timeout);
            if ($pdo === false) {
                return false;
            }
            $pdo->reset();
            return $pdo;
        }

        private function createDSN(string $driver): string
        {
            $c = $this->config;
            $hostOrSocket = $c->hasUnixSocket() ? $c->getUnixSocket() : $c->getHost();
            switch ($driver) {
                case 'mysql':
                    $where = $c->hasUnixSocket() ? "unix_socket={$c->getUnixSocket()}" : "host={$c->getHost()};port={$c->getPort()}";
                    return "mysql:{$where};dbname={$c->getDbname()};charset={$c->getCharset()}";
                case 'pgsql':
                    return "pgsql:host={$hostOrSocket};port={$c->getPort()};dbname={$c->getDbname()}";
                case 'oci':
                    return "oci:dbname={$hostOrSocket}:{$c->getPort()}/{$c->getDbname()};charset={$c->getCharset()}";
                case 'sqlite':
                    // Each connection to a temporary or in-memory database sees a different database: no pool for those.
                    if ($c->getDbname() === '') {
                        throw new \Exception('Connection pool in Swoole does not support temporary SQLite databases.');
                    }
                    if ($c->getDbname() === ':memory:') {
                        throw new \Exception('Connection pool in Swoole does not support creating SQLite databases in memory.');
                    }
                    return 'sqlite:' . $c->getDbname();
                default:
                    throw new \Exception('Unsupported Database Driver:' . $driver);
            }
        }
    }

    /** A PDO that reconnects (outside a transaction) when a call fails because the connection was lost. */
    class PDOProxy extends ObjectProxy
    {
        /** @var \PDO */
        protected $__object;

        /** Attributes set through the proxy, set again on a new connection. */
        protected array $setAttributeContext = [];

        /** @var callable */
        protected $constructor;

        /** How many times this proxy has reconnected. */
        protected int $round = 0;

        protected int $inTransaction = 0;

        public function __construct(callable $constructor)
        {
            $this->constructor = $constructor;
            $this->connect();
        }

        private function connect(): void
        {
            $pdo = ($this->constructor)();
            $pdo->setAttribute(\PDO::ATTR_ERRMODE, \PDO::ERRMODE_EXCEPTION);
            $this->__object = $pdo;
        }

        public function __call(string $name, array $arguments)
        {
            try {
                $ret = $this->__object->{$name}(...$arguments);
            } catch (\PDOException $e) {
                if ($this->__object->inTransaction() || !DetectsLostConnections::causedByLostConnection($e)) {
                    throw $e;
                }
                $this->reconnect();
                $ret = $this->__object->{$name}(...$arguments);
            }
            $lname = strtolower($name);
            if ($lname === 'begintransaction') {
                $this->inTransaction++;
            } elseif (($lname === 'commit' || $lname === 'rollback') && $this->inTransaction > 0) {
                $this->inTransaction--;
            } elseif (($lname === 'prepare' || $lname === 'query') && $ret instanceof \PDOStatement) {
                $ret = new PDOStatementProxy($ret, $this);
            }
            return $ret;
        }

        public function getRound(): int
        {
            return $this->round;
        }

        public function reconnect(): void
        {
            $this->connect();
            $this->round++;
            foreach ($this->setAttributeContext as $attribute => $value) {
                $this->__object->setAttribute($attribute, $value);
            }
        }

        public function setAttribute(int $attribute, $value): bool
        {
            $this->setAttributeContext[$attribute] = $value;
            return $this->__object->setAttribute($attribute, $value);
        }

        public function inTransaction(): bool
        {
            return $this->inTransaction > 0;
        }

        public function reset(): void
        {
            $this->inTransaction = 0;
        }
    }

    /** A PDOStatement that is prepared again on a new connection when its own was lost. */
    class PDOStatementProxy extends ObjectProxy
    {
        /** @var \PDOStatement */
        protected $__object;

        protected array $setAttributeContext = [];

        protected array $setFetchModeContext = [];

        protected array $bindParamContext = [];

        protected array $bindColumnContext = [];

        protected array $bindValueContext = [];

        protected PDOProxy $parent;

        /** @var int the parent's round when this statement was prepared */
        protected $parentRound;

        public function __construct(\PDOStatement $object, PDOProxy $parent)
        {
            parent::__construct($object);
            $this->parent = $parent;
            $this->parentRound = $parent->getRound();
        }

        public function __call(string $name, array $arguments)
        {
            try {
                return $this->__object->{$name}(...$arguments);
            } catch (\PDOException $e) {
                if ($this->parent->inTransaction() || !DetectsLostConnections::causedByLostConnection($e)) {
                    throw $e;
                }
            }
            // The connection is gone: reconnect once (unless another statement already did), prepare again,
            // restore what was set on the old statement, and retry.
            if ($this->parent->getRound() === $this->parentRound) {
                $this->parent->reconnect();
            }
            $this->parentRound = $this->parent->getRound();
            $this->__object = $this->parent->__getObject()->prepare($this->__object->queryString);
            foreach ($this->setAttributeContext as $attribute => $value) {
                $this->__object->setAttribute($attribute, $value);
            }
            if ($this->setFetchModeContext) {
                $this->__object->setFetchMode(...$this->setFetchModeContext);
            }
            foreach ($this->bindParamContext as $param => $args) {
                $this->__object->bindParam($param, ...$args);
            }
            foreach ($this->bindColumnContext as $column => $args) {
                $this->__object->bindColumn($column, ...$args);
            }
            foreach ($this->bindValueContext as $param => $args) {
                $this->__object->bindValue($param, ...$args);
            }
            return $this->__object->{$name}(...$arguments);
        }

        public function setAttribute(int $attribute, $value): bool
        {
            $this->setAttributeContext[$attribute] = $value;
            return $this->__object->setAttribute($attribute, $value);
        }

        public function setFetchMode(int $mode, ...$params): bool
        {
            $this->setFetchModeContext = [$mode, ...$params];
            return $this->__object->setFetchMode($mode, ...$params);
        }

        public function bindParam($parameter, &$variable, $data_type = \PDO::PARAM_STR, $length = 0, $driver_options = null): bool
        {
            $this->bindParamContext[$parameter] = [&$variable, $data_type, $length, $driver_options];
            return $this->__object->bindParam($parameter, $variable, $data_type, $length, $driver_options);
        }

        public function bindColumn($column, &$param, $type = null, $maxlen = null, $driverdata = null): bool
        {
            $this->bindColumnContext[$column] = [&$param, $type, $maxlen, $driverdata];
            $type ??= \PDO::PARAM_STR;
            return $maxlen === null ? $this->__object->bindColumn($column, $param, $type)
                : $this->__object->bindColumn($column, $param, $type, $maxlen, $driverdata);
        }

        public function bindValue($parameter, $value, $data_type = \PDO::PARAM_STR): bool
        {
            $this->bindValueContext[$parameter] = [$value, $data_type];
            return $this->__object->bindValue($parameter, $value, $data_type);
        }
    }

    class RedisConfig
    {
        protected string $host = '127.0.0.1';
        protected int $port = 6379;
        protected float $timeout = 0.0;
        protected string $reserved = '';
        protected int $retry_interval = 0;
        protected float $read_timeout = 0.0;
        protected string $auth = '';
        protected int $dbIndex = 0;
        protected array $options = [];

        public function getHost(): string
        {
            return $this->host;
        }

        public function withHost(string $host): self
        {
            $this->host = $host;
            return $this;
        }

        public function getPort(): int
        {
            return $this->port;
        }

        public function withPort(int $port): self
        {
            $this->port = $port;
            return $this;
        }

        public function getTimeout(): float
        {
            return $this->timeout;
        }

        public function withTimeout(float $timeout): self
        {
            $this->timeout = $timeout;
            return $this;
        }

        public function getReserved(): string
        {
            return $this->reserved;
        }

        public function withReserved(string $reserved): self
        {
            $this->reserved = $reserved;
            return $this;
        }

        public function getRetryInterval(): int
        {
            return $this->retry_interval;
        }

        public function withRetryInterval(int $retry_interval): self
        {
            $this->retry_interval = $retry_interval;
            return $this;
        }

        public function getReadTimeout(): float
        {
            return $this->read_timeout;
        }

        public function withReadTimeout(float $read_timeout): self
        {
            $this->read_timeout = $read_timeout;
            return $this;
        }

        public function getAuth(): string
        {
            return $this->auth;
        }

        public function withAuth(string $auth): self
        {
            $this->auth = $auth;
            return $this;
        }

        public function getDbIndex(): int
        {
            return $this->dbIndex;
        }

        public function withDbIndex(int $dbIndex): self
        {
            $this->dbIndex = $dbIndex;
            return $this;
        }

        /** One \Redis::setOption() applied to every new connection. */
        public function withOption(int $option, mixed $value): self
        {
            $this->options[$option] = $value;
            return $this;
        }

        public function setOptions(array $options): self
        {
            $this->options = $options;
            return $this;
        }

        public function getOptions(): array
        {
            return $this->options;
        }
    }

    /** phpredis connections (\Redis, no proxy: phpredis reconnects a lost connection on its next command itself). */
    class RedisPool extends ConnectionPool
    {
        public function __construct(protected RedisConfig $config, int $size = self::DEFAULT_SIZE)
        {
            parent::__construct(function () {
                $c = $this->config;
                $redis = new \Redis();
                // connect($host, $port, $timeout, $reserved, $retry_interval, $read_timeout): only as far as needed,
                // so that older phpredis versions take it too.
                $args = [$c->getHost(), $c->getPort()];
                if ($c->getTimeout() !== 0.0 || $c->getRetryInterval() !== 0 || $c->getReadTimeout() !== 0.0) {
                    $args[] = $c->getTimeout();
                }
                if ($c->getRetryInterval() !== 0 || $c->getReadTimeout() !== 0.0) {
                    $args[] = null;
                    $args[] = $c->getRetryInterval();
                }
                if ($c->getReadTimeout() !== 0.0) {
                    $args[] = $c->getReadTimeout();
                }
                $redis->connect(...$args);
                if ($c->getAuth() !== '') {
                    $redis->auth($c->getAuth());
                }
                if ($c->getDbIndex() !== 0) {
                    $redis->select($c->getDbIndex());
                }
                foreach ($c->getOptions() as $option => $value) {
                    $redis->setOption($option, $value);
                }
                return $redis;
            }, $size);
        }
    }

    class MysqliConfig
    {
        protected string $host = '127.0.0.1';
        protected int $port = 3306;
        protected ?string $unixSocket = null;
        protected string $dbname = 'test';
        protected string $charset = 'utf8mb4';
        protected string $username = 'root';
        protected string $password = 'root';
        protected array $options = [];

        public function getHost(): string
        {
            return $this->host;
        }

        public function withHost(string $host): self
        {
            $this->host = $host;
            return $this;
        }

        public function getPort(): int
        {
            return $this->port;
        }

        public function getUnixSocket(): ?string
        {
            return $this->unixSocket;
        }

        public function withUnixSocket(?string $unixSocket): self
        {
            $this->unixSocket = $unixSocket;
            return $this;
        }

        public function withPort(int $port): self
        {
            $this->port = $port;
            return $this;
        }

        public function getDbname(): string
        {
            return $this->dbname;
        }

        public function withDbname(string $dbname): self
        {
            $this->dbname = $dbname;
            return $this;
        }

        public function getCharset(): string
        {
            return $this->charset;
        }

        public function withCharset(string $charset): self
        {
            $this->charset = $charset;
            return $this;
        }

        public function getUsername(): string
        {
            return $this->username;
        }

        public function withUsername(string $username): self
        {
            $this->username = $username;
            return $this;
        }

        public function getPassword(): string
        {
            return $this->password;
        }

        public function withPassword(string $password): self
        {
            $this->password = $password;
            return $this;
        }

        public function getOptions(): array
        {
            return $this->options;
        }

        public function withOptions(array $options): self
        {
            $this->options = $options;
            return $this;
        }
    }

    class MysqliException extends \Exception
    {
    }

    /** mysqli connections, each wrapped in a MysqliProxy that reconnects when the server went away. */
    class MysqliPool extends ConnectionPool
    {
        public function __construct(protected MysqliConfig $config, int $size = self::DEFAULT_SIZE)
        {
            parent::__construct(function () {
                $c = $this->config;
                $mysqli = new \mysqli();
                foreach ($c->getOptions() as $option => $value) {
                    $mysqli->options($option, $value);
                }
                $mysqli->real_connect($c->getHost(), $c->getUsername(), $c->getPassword(), $c->getDbname(), $c->getPort(), $c->getUnixSocket());
                if ($mysqli->connect_errno) {
                    throw new MysqliException((string) $mysqli->connect_error, $mysqli->connect_errno);
                }
                $mysqli->set_charset($c->getCharset());
                return $mysqli;
            }, $size, MysqliProxy::class);
        }
    }

    /** A mysqli that reconnects and retries (up to 3 times) when an I/O method fails with a lost-connection error. */
    class MysqliProxy extends ObjectProxy
    {
        public const IO_METHOD_REGEX = '/^autocommit|begin_transaction|change_user|close|commit|kill|multi_query|ping|prepare|query|real_connect|real_query|reap_async_query|refresh|release_savepoint|rollback|savepoint|select_db|send_query|set_charset|ssl_set$/i';

        /** CR_CONNECTION_ERROR, CR_SERVER_GONE_ERROR, CR_SERVER_LOST. */
        public const IO_ERRORS = [2002, 2006, 2013];

        /** @var \mysqli */
        protected $__object;

        protected string $charsetContext = '';

        protected array $setOptContext = [];

        protected array $changeUserContext = [];

        /** @var callable */
        protected $constructor;

        protected int $round = 0;

        public function __construct(callable $constructor)
        {
            parent::__construct($constructor());
            $this->constructor = $constructor;
        }

        public function __call(string $name, array $arguments)
        {
            $isIo = preg_match(static::IO_METHOD_REGEX, $name) === 1;
            for ($attempt = 1; ; $attempt++) {
                try {
                    $ret = @$this->__object->{$name}(...$arguments);
                } catch (\mysqli_sql_exception $e) {
                    // mysqli reports by exception by default since PHP 8.1 (MYSQLI_REPORT_ERROR | STRICT).
                    if (!$isIo || !in_array($e->getCode(), static::IO_ERRORS, true) || $attempt >= 3) {
                        throw new MysqliException($e->getMessage(), $e->getCode(), $e);
                    }
                    $this->reconnect();
                    continue;
                }
                if ($ret === false && $isIo) {
                    if (!in_array($this->__object->errno, static::IO_ERRORS, true) || $attempt >= 3) {
                        throw new MysqliException($this->__object->error, $this->__object->errno);
                    }
                    $this->reconnect();
                    continue;
                }
                break;
            }
            if (strcasecmp($name, 'prepare') === 0 && $ret instanceof \mysqli_stmt) {
                $ret = new MysqliStatementProxy($ret, $arguments[0], $this);
            } elseif (strcasecmp($name, 'stmt_init') === 0 && $ret instanceof \mysqli_stmt) {
                $ret = new MysqliStatementProxy($ret, null, $this);
            }
            return $ret;
        }

        public function getRound(): int
        {
            return $this->round;
        }

        public function reconnect(): void
        {
            parent::__construct(($this->constructor)());
            $this->round++;
            if ($this->charsetContext !== '') {
                $this->__object->set_charset($this->charsetContext);
            }
            foreach ($this->setOptContext as $option => $value) {
                $this->__object->options($option, $value);
            }
            if ($this->changeUserContext) {
                $this->__object->change_user(...$this->changeUserContext);
            }
        }

        public function options(int $option, $value): bool
        {
            $this->setOptContext[$option] = $value;
            return $this->__object->options($option, $value);
        }

        public function set_opt(int $option, $value): bool
        {
            return $this->options($option, $value);
        }

        public function set_charset(string $charset): bool
        {
            $this->charsetContext = $charset;
            return $this->__object->set_charset($charset);
        }

        public function change_user(string $user, string $password, ?string $database): bool
        {
            $this->changeUserContext = [$user, $password, $database];
            return $this->__object->change_user($user, $password, $database);
        }
    }

    /** A mysqli_stmt that is prepared again on a new connection when its own was lost. */
    class MysqliStatementProxy extends ObjectProxy
    {
        public const IO_METHOD_REGEX = '/^close|execute|fetch|prepare$/i';

        /** @var \mysqli_stmt */
        protected $__object;

        protected ?string $queryString;

        protected array $attrSetContext = [];

        protected array $bindParamContext = [];

        protected array $bindResultContext = [];

        protected MysqliProxy $parent;

        protected int $parentRound;

        public function __construct(\mysqli_stmt $object, ?string $queryString, MysqliProxy $parent)
        {
            parent::__construct($object);
            $this->queryString = $queryString;
            $this->parent = $parent;
            $this->parentRound = $parent->getRound();
        }

        public function __call(string $name, array $arguments)
        {
            $isIo = preg_match(static::IO_METHOD_REGEX, $name) === 1;
            for ($attempt = 1; ; $attempt++) {
                try {
                    $ret = @$this->__object->{$name}(...$arguments);
                    $errno = $ret === false ? $this->__object->errno : 0;
                    $error = $ret === false ? $this->__object->error : '';
                } catch (\mysqli_sql_exception $e) {
                    $ret = false;
                    $errno = $e->getCode();
                    $error = $e->getMessage();
                }
                if ($ret !== false || !$isIo) {
                    break;
                }
                if (!in_array($errno, MysqliProxy::IO_ERRORS, true) || $attempt >= 3) {
                    throw new MysqliException($error, $errno);
                }
                if ($this->parent->getRound() === $this->parentRound) {
                    $this->parent->reconnect();
                }
                $this->parentRound = $this->parent->getRound();
                $conn = $this->parent->__getObject();
                $stmt = $this->queryString !== null ? @$conn->prepare($this->queryString) : @$conn->stmt_init();
                if ($stmt === false) {
                    throw new MysqliException($conn->error, $conn->errno);
                }
                $this->__object = $stmt;
                if ($this->bindParamContext) {
                    $stmt->bind_param($this->bindParamContext[0], ...$this->bindParamContext[1]);
                }
                if ($this->bindResultContext) {
                    $stmt->bind_result(...$this->bindResultContext);
                }
                foreach ($this->attrSetContext as $attr => $value) {
                    $stmt->attr_set($attr, $value);
                }
            }
            if (strcasecmp($name, 'prepare') === 0) {
                $this->queryString = $arguments[0];
            }
            return $ret;
        }

        public function attr_set($attr, $mode): bool
        {
            $this->attrSetContext[$attr] = $mode;
            return $this->__object->attr_set($attr, $mode);
        }

        public function bind_param($types, &...$arguments): bool
        {
            $this->bindParamContext = [$types, &$arguments];
            return $this->__object->bind_param($types, ...$arguments);
        }

        public function bind_result(&...$arguments): bool
        {
            $this->bindResultContext = &$arguments;
            return $this->__object->bind_result(...$arguments);
        }
    }
}
