--TEST--
swoole_module: server mode, socket type and log level constants have Swoole's values
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Checks the integer values of the core constants against Swoole 6.x.
foreach ([
    'SWOOLE_BASE', 'SWOOLE_PROCESS',
    'SWOOLE_SOCK_TCP', 'SWOOLE_SOCK_UDP', 'SWOOLE_SOCK_TCP6', 'SWOOLE_SOCK_UDP6',
    'SWOOLE_LOG_DEBUG', 'SWOOLE_LOG_TRACE', 'SWOOLE_LOG_INFO', 'SWOOLE_LOG_NOTICE',
    'SWOOLE_LOG_WARNING', 'SWOOLE_LOG_ERROR', 'SWOOLE_LOG_NONE',
] as $name) {
    echo $name, '=', defined($name) ? var_export(constant($name), true) : 'UNDEFINED', "\n";
}
?>
--EXPECT--
SWOOLE_BASE=1
SWOOLE_PROCESS=2
SWOOLE_SOCK_TCP=1
SWOOLE_SOCK_UDP=2
SWOOLE_SOCK_TCP6=3
SWOOLE_SOCK_UDP6=4
SWOOLE_LOG_DEBUG=0
SWOOLE_LOG_TRACE=1
SWOOLE_LOG_INFO=2
SWOOLE_LOG_NOTICE=3
SWOOLE_LOG_WARNING=4
SWOOLE_LOG_ERROR=5
SWOOLE_LOG_NONE=6
