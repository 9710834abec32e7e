//! rswoole: the Swoole API for PHP 8.1+, implemented in Rust.
//!
//! Layers, each depending only on the ones below it (see docs/internals.md):
//! - `php`: one file per PHP class; the only place that touches Zend values.
//! - `coro`: the coroutine scheduler over PHP Fibers.
//! - `engine`: processes, sockets, HTTP, timers; no PHP at all.

pub mod engine;

#[cfg(feature = "php")]
pub mod coro;
#[cfg(feature = "php")]
pub mod php;

/// mimalloc for every Rust allocation (PHP values keep using the Zend
/// allocator): the request path makes many small short-lived allocations,
/// and glibc malloc was ~8% of a worker's CPU in `perf` (bench/RESULTS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
