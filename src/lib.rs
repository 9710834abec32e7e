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

/// mimalloc's `arena_eager_commit` option (`mi_option_t` 4 in mimalloc.h).
const MI_OPTION_ARENA_EAGER_COMMIT: i32 = 4;

extern "C" {
    // void mi_option_set(mi_option_t option, long value);  (mimalloc)
    fn mi_option_set(option: i32, value: std::ffi::c_long);
}

/// Runs when the dynamic loader maps the extension, before its first
/// allocation: mimalloc then commits arena memory only as it is used.
/// Its Linux default commits the first arena eagerly, which touched 6 MiB
/// in every process (master, each worker, each task worker: all of it
/// anonymous, so a forked worker's RSS carried it too).
extern "C" fn configure_allocator() {
    // SAFETY: mi_option_set writes one entry of mimalloc's static option
    // table; the loader runs this constructor on one thread, before any
    // code of this library runs.
    unsafe { mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0) };
}

#[used]
#[link_section = ".init_array"]
static CONFIGURE_ALLOCATOR: extern "C" fn() = configure_allocator;
