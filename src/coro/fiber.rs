//! PHP's fiber-switch guard: where switching is unsafe (destructors run by
//! the garbage collector, request shutdown), coroutines do not switch.

use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

extern "C" {
    // ZEND_API bool zend_fiber_switch_blocked(void);
    fn zend_fiber_switch_blocked() -> bool;
    // ZEND_API extern int (*gc_collect_cycles)(void);
    static mut gc_collect_cycles: Option<unsafe extern "C" fn() -> i32>;
}

/// How deep the running code is in PHP's cycle collector (a process-wide
/// counter: NTS PHP runs on one thread).
static GC_DEPTH: AtomicU32 = AtomicU32::new(0);
/// The collector `gc_guard` wraps.
static GC_ORIGINAL: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

/// True where coroutines must not switch.
///
/// PHP 8.1–8.3 block fiber switches in every destructor; Swoole (which
/// switches stacks itself) and PHP 8.4 allow them there, so a destructor may
/// start a coroutine or wait (hooked I/O in `__destruct`). Only destructors
/// run by the cycle collector stay blocked (the collector is not reentrant),
/// and nothing switches once request shutdown has begun unwinding.
#[inline]
pub fn switch_blocked() -> bool {
    if super::shutting_down() {
        return true;
    }
    // SAFETY: reads a flag of the running engine; no arguments.
    GC_DEPTH.load(Ordering::Relaxed) != 0 && unsafe { zend_fiber_switch_blocked() }
}

/// Counts the collector's runs (see `switch_blocked`).
unsafe extern "C" fn gc_guard() -> i32 {
    let orig = GC_ORIGINAL.load(Ordering::Relaxed);
    if orig.is_null() {
        return 0;
    }
    // SAFETY: `orig` is the collector PHP had installed before `install`
    // (a plain C function of this signature).
    let orig: unsafe extern "C" fn() -> i32 = unsafe { std::mem::transmute(orig) };
    GC_DEPTH.fetch_add(1, Ordering::Relaxed);
    // SAFETY: calling PHP's own collector, as `gc_collect_cycles()` would.
    let n = unsafe { orig() };
    GC_DEPTH.fetch_sub(1, Ordering::Relaxed);
    n
}

/// Wraps PHP's collector (module startup, once; the engine has set it).
pub fn install() {
    // SAFETY: module startup, single-threaded; the engine reads this
    // pointer only when it collects, on this thread.
    unsafe {
        let cur = *std::ptr::addr_of!(gc_collect_cycles);
        let Some(cur) = cur else { return };
        let guard: unsafe extern "C" fn() -> i32 = gc_guard;
        if std::ptr::fn_addr_eq(cur, guard) {
            return;
        }
        GC_ORIGINAL.store(cur as *mut (), Ordering::Relaxed);
        *std::ptr::addr_of_mut!(gc_collect_cycles) = Some(gc_guard);
    }
}
