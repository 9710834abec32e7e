//! Module-level constants with Swoole 6.x's names and numeric values.

use ext_php_rs::prelude::*;

/// The Swoole API level rswoole follows.
pub const SWOOLE_VERSION: &str = "6.2.2";
pub const SWOOLE_VERSION_ID: i64 = 60202;

pub const SWOOLE_BASE: i64 = 1;
pub const SWOOLE_PROCESS: i64 = 2;

pub const SWOOLE_SOCK_TCP: i64 = 1;
pub const SWOOLE_SOCK_UDP: i64 = 2;
pub const SWOOLE_SOCK_TCP6: i64 = 3;
pub const SWOOLE_SOCK_UDP6: i64 = 4;
pub const SWOOLE_SOCK_UNIX_STREAM: i64 = 5;
pub const SWOOLE_SOCK_UNIX_DGRAM: i64 = 6;

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    let ints: &[(&str, i64)] = &[
        ("SWOOLE_VERSION_ID", SWOOLE_VERSION_ID),
        ("SWOOLE_MAJOR_VERSION", 6),
        ("SWOOLE_MINOR_VERSION", 2),
        ("SWOOLE_RELEASE_VERSION", 2),
        ("SWOOLE_BASE", SWOOLE_BASE),
        ("SWOOLE_PROCESS", SWOOLE_PROCESS),
        ("SWOOLE_SOCK_TCP", SWOOLE_SOCK_TCP),
        ("SWOOLE_SOCK_UDP", SWOOLE_SOCK_UDP),
        ("SWOOLE_SOCK_TCP6", SWOOLE_SOCK_TCP6),
        ("SWOOLE_SOCK_UDP6", SWOOLE_SOCK_UDP6),
        ("SWOOLE_SOCK_UNIX_STREAM", SWOOLE_SOCK_UNIX_STREAM),
        ("SWOOLE_SOCK_UNIX_DGRAM", SWOOLE_SOCK_UNIX_DGRAM),
        ("SWOOLE_TCP", SWOOLE_SOCK_TCP),
        ("SWOOLE_UDP", SWOOLE_SOCK_UDP),
        ("SWOOLE_TCP6", SWOOLE_SOCK_TCP6),
        ("SWOOLE_UDP6", SWOOLE_SOCK_UDP6),
        ("SWOOLE_UNIX_STREAM", SWOOLE_SOCK_UNIX_STREAM),
        ("SWOOLE_UNIX_DGRAM", SWOOLE_SOCK_UNIX_DGRAM),
        ("SWOOLE_LOG_DEBUG", 0),
        ("SWOOLE_LOG_TRACE", 1),
        ("SWOOLE_LOG_INFO", 2),
        ("SWOOLE_LOG_NOTICE", 3),
        ("SWOOLE_LOG_WARNING", 4),
        ("SWOOLE_LOG_ERROR", 5),
        ("SWOOLE_LOG_NONE", 6),
        ("SWOOLE_DISPATCH_ROUND", 1),
        ("SWOOLE_DISPATCH_FDMOD", 2),
        ("SWOOLE_DISPATCH_IDLE_WORKER", 3),
        ("SWOOLE_DISPATCH_IPMOD", 4),
        ("SWOOLE_WORKER_BUSY", 1),
        ("SWOOLE_WORKER_IDLE", 2),
        ("SWOOLE_WORKER_EXIT", 3),
    ];
    let mut m = module.constant(("SWOOLE_VERSION", SWOOLE_VERSION, &[]));
    m = m.constant(("SWOOLE_EXTRA_VERSION", "", &[]));
    for (name, value) in ints {
        m = m.constant((*name, *value, &[]));
    }
    m
}
