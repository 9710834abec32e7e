//! The PHP side of `engine::watchdog`: the `zend_interrupt_function` that
//! logs the PHP stack of code blocking the event loop
//! (`swoole.blocking_detection`) and fails a request past `request_timeout`
//! with PHP's timeout error; the ini entries; coroutine cancellation on a
//! timed-out request.
//!
//! The watchdog thread never reads PHP memory: it only sets
//! `EG(vm_interrupt)` (an atomic, what PHP's own SIGPROF handler does), and
//! PHP calls our interrupt function on its own thread at the next opcode
//! boundary, where reading `execute_data` is safe.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use ext_php_rs::error::php_error;
use ext_php_rs::ffi::{
    zend_execute_data, zend_function, zend_interrupt_function, ZEND_USER_FUNCTION,
};
use ext_php_rs::flags::ErrorType;
use ext_php_rs::types::ZendStr;
use ext_php_rs::zend::ExecutorGlobals;

use crate::coro::{self, Cid, WaitKind, Wake};
use crate::engine::watchdog;

type InterruptFn = unsafe extern "C" fn(*mut zend_execute_data);

extern "C" {
    // ZEND_API void zend_unset_timeout(void);
    fn zend_unset_timeout();
}

/// The interrupt function that was installed before ours (pcntl's, say).
static mut PREVIOUS: Option<InterruptFn> = None;
/// A deadline is on for this server (coroutines are tracked by request).
static TRACK: AtomicBool = AtomicBool::new(false);
/// `request_timeout` came from PHP's `max_execution_time` (its message).
static FROM_INI: AtomicBool = AtomicBool::new(false);
static TIMEOUT_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

thread_local! {
    /// Connection id -> the coroutine answering its current request.
    static BY_FD: Box<RefCell<HashMap<i64, Cid>>> = Box::new(RefCell::new(HashMap::new()));
    static SWEEP_AT: std::cell::Cell<usize> = const { std::cell::Cell::new(256) };
}

/// At MINIT: our interrupt function, in front of any earlier one.
pub fn install() {
    // SAFETY: MINIT runs single-threaded before any script; reading and
    // writing the engine's global hook pointer is what every extension that
    // chains it does.
    unsafe {
        PREVIOUS = zend_interrupt_function;
        zend_interrupt_function = Some(on_interrupt);
    }
    watchdog::set_interrupt(request_interrupt);
    watchdog::set_sampler(sample);
    watchdog::set_coroutine_counter(|| coro::count() as u64);
}

const SNAP_MAX: usize = 64;
#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicUsize = AtomicUsize::new(0);
/// The stack as the watchdog thread saw it when it found the loop
/// blocked: (frame address, function address, line) per frame.
static SNAP_FRAME: [AtomicUsize; SNAP_MAX] = [ZERO; SNAP_MAX];
static SNAP_FUNC: [AtomicUsize; SNAP_MAX] = [ZERO; SNAP_MAX];
static SNAP_LINE: [AtomicUsize; SNAP_MAX] = [ZERO; SNAP_MAX];
static SNAP_LEN: AtomicUsize = AtomicUsize::new(0);

/// From the watchdog thread, while the PHP thread is blocked: records
/// where each frame stands. Only addresses and integers are read (no
/// string, no allocation), with volatile reads. The race is documented in
/// docs/internals.md ("Blocking-call detection"): the PHP thread may be
/// running (a spinning loop), so a frame may change under us; what we read
/// is then only used if the same frame is still there when PHP calls
/// `on_interrupt` on its own thread.
fn sample() {
    // SAFETY: see above. The executor globals are a static of the PHP
    // thread's process; the frames live on the VM stack, which is not
    // unmapped while the PHP thread is blocked in a call (the case this
    // serves); at worst a stale value is read, never written.
    unsafe {
        let mut ex = std::ptr::read_volatile(std::ptr::addr_of!(
            ext_php_rs::ffi::executor_globals.current_execute_data
        ));
        let mut n = 0;
        while !ex.is_null() && n < SNAP_MAX {
            let f = std::ptr::read_volatile(std::ptr::addr_of!((*ex).func));
            let op = std::ptr::read_volatile(std::ptr::addr_of!((*ex).opline));
            let mut line = 0usize;
            if !f.is_null()
                && u32::from(std::ptr::read_volatile(std::ptr::addr_of!((*f).type_)))
                    == ZEND_USER_FUNCTION
                && !op.is_null()
            {
                line = std::ptr::read_volatile(std::ptr::addr_of!((*op).lineno)) as usize;
            }
            SNAP_FRAME[n].store(ex as usize, Ordering::Relaxed);
            SNAP_FUNC[n].store(f as usize, Ordering::Relaxed);
            SNAP_LINE[n].store(line, Ordering::Relaxed);
            n += 1;
            ex = std::ptr::read_volatile(std::ptr::addr_of!((*ex).prev_execute_data));
        }
        SNAP_LEN.store(n, Ordering::Release);
    }
}

/// From the watchdog thread: ask PHP to call `on_interrupt` soon.
fn request_interrupt() {
    // SAFETY: `vm_interrupt` is a `zend_atomic_bool` (one byte, accessed
    // atomically by the engine); storing into it from another thread is
    // what PHP's own timeout signal handler does. Only its address is taken.
    unsafe {
        let p = std::ptr::addr_of_mut!(ext_php_rs::ffi::executor_globals.vm_interrupt);
        AtomicBool::from_ptr(p.cast::<bool>()).store(true, Ordering::SeqCst);
    }
}

// may_bail: yes, by design: a passed `request_timeout` raises E_ERROR here, as `zend_timeout()` does.
crate::php::ffi::php_fn!(log unsafe fn on_interrupt(ex: *mut zend_execute_data) => on_interrupt_body);
unsafe fn on_interrupt_body(ex: *mut zend_execute_data) {
    let pending = watchdog::take_pending();
    if pending & watchdog::BLOCKED != 0 && watchdog::still_blocked() {
        let text = report(ex);
        crate::rlog!(Warning, "{}", text.trim_end());
    }
    // SAFETY: the previous hook was a valid interrupt function (or None).
    let prev = unsafe { PREVIOUS };
    if let Some(p) = prev {
        // SAFETY: called with the frame the engine gave us.
        unsafe { p(ex) };
    }
    if pending & watchdog::DEADLINE != 0 {
        crate::engine::shared::stats::set_exit_reason(
            crate::engine::shared::stats::ExitReason::RequestTimeout,
        );
        let ms = TIMEOUT_MS.load(Ordering::Relaxed);
        let secs = ms.div_ceil(1000);
        let msg = if FROM_INI.load(Ordering::Relaxed) {
            format!(
                "Maximum execution time of {secs} second{} exceeded",
                if secs == 1 { "" } else { "s" }
            )
        } else {
            format!(
                "Maximum execution time of {secs} second{} exceeded (request_timeout)",
                if secs == 1 { "" } else { "s" }
            )
        };
        // E_ERROR bails out, as PHP's own zend_timeout() does from here;
        // the boundary catches it and the worker is replaced.
        php_error(&ErrorType::Error, &msg);
    }
}

/// The blocking report: how long, then one line per PHP frame.
fn report(ex: *mut zend_execute_data) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "worker#{}(pid={}): the event loop has been blocked for {} ms (swoole.blocking_threshold); PHP stack:",
        crate::engine::worker::current_worker_id(),
        std::process::id(),
        watchdog::blocked_for().as_millis()
    );
    let snap_len = SNAP_LEN.swap(0, Ordering::Acquire);
    let snap: Vec<(usize, usize, usize)> = (0..snap_len)
        .map(|i| {
            (
                SNAP_FRAME[i].load(Ordering::Relaxed),
                SNAP_FUNC[i].load(Ordering::Relaxed),
                SNAP_LINE[i].load(Ordering::Relaxed),
            )
        })
        .collect();
    let mut n = 0;
    // SAFETY: on the PHP thread inside the interrupt hook: `ex` and its
    // `prev_execute_data` chain are live frames of the running VM, and
    // their functions, names and oplines are owned by the engine for as
    // long as the frames exist. An internal function seen by the sampler
    // is a persistent `zend_function` (internal functions live until
    // module shutdown).
    unsafe {
        // Blocked inside an internal call (usleep, a blocking read): the
        // sampler saw it on top, and PHP's lines of that moment are the
        // ones to show (PHP 8.2 checks interrupts only at the next jump
        // or user call, a few opcodes later).
        let in_call = snap.first().is_some_and(|&(_, f, _)| {
            f != 0 && u32::from((*(f as *const zend_function)).type_) != ZEND_USER_FUNCTION
        });
        if in_call {
            let f = snap[0].1 as *const zend_function;
            let _ = writeln!(out, "  #{n} [internal] {}", func_label(f));
            n += 1;
        }
        let mut frame = ex;
        while !frame.is_null() && n < 64 {
            let f = (*frame).func;
            if !f.is_null() {
                let name = zstr((*f).common.function_name);
                if u32::from((*f).type_) == ZEND_USER_FUNCTION {
                    let file = zstr((*f).op_array.filename);
                    let now = if (*frame).opline.is_null() {
                        (*f).op_array.line_start
                    } else {
                        (*(*frame).opline).lineno
                    };
                    let seen = snap
                        .iter()
                        .find(|&&(fr, fu, _)| fr == frame as usize && fu == f as usize)
                        .map(|&(_, _, l)| l as u32)
                        .filter(|l| in_call && *l > 0);
                    let line = seen.unwrap_or(now);
                    let _ = writeln!(out, "  #{n} {file}:{line} {}", func_label(f));
                } else if name.is_empty() {
                    // The bottom frame of a fiber: nothing to name.
                    frame = (*frame).prev_execute_data;
                    continue;
                } else {
                    let _ = writeln!(out, "  #{n} [internal] {}", func_label(f));
                }
                n += 1;
            }
            frame = (*frame).prev_execute_data;
        }
    }
    out
}

/// `Class::name()`, `name()` or `{main}`.
///
/// # Safety
/// `f` is a live `zend_function`.
unsafe fn func_label(f: *const zend_function) -> String {
    // SAFETY: the caller passes a live function; its name and scope are
    // engine strings and classes that outlive it.
    unsafe {
        let name = zstr((*f).common.function_name);
        if name.is_empty() {
            return "{main}".into();
        }
        let scope = (*f).common.scope;
        if scope.is_null() {
            format!("{name}()")
        } else {
            format!("{}::{name}()", zstr((*scope).name))
        }
    }
}

fn zstr(s: *mut ext_php_rs::ffi::zend_string) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: a non-null engine string owned by a live function or class.
    let z: &ZendStr = unsafe { &*s.cast::<ZendStr>() };
    String::from_utf8_lossy(z.as_bytes()).into_owned()
}

fn ini(name: &str) -> Option<String> {
    ExecutorGlobals::get()
        .ini_values()
        .get(name)
        .cloned()
        .flatten()
}

fn ini_on(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "on" | "true" | "yes"
    )
}

/// `swoole.blocking_detection` / `swoole.blocking_threshold` (µs, Swoole's
/// unit; default 100000).
pub fn blocking_threshold() -> Option<Duration> {
    if !ini("swoole.blocking_detection").is_some_and(|v| ini_on(&v)) {
        return None;
    }
    let us = ini("swoole.blocking_threshold")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(100_000);
    Some(Duration::from_micros(us))
}

/// PHP's `max_execution_time`, when set.
pub fn max_execution_time() -> Option<Duration> {
    ini("max_execution_time")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|n| *n > 0)
        .map(Duration::from_secs)
}

/// At `start()`: the deadline in force, and where it came from.
pub fn configure(timeout: Option<Duration>, from_ini: bool) {
    if from_ini && timeout.is_some() {
        // max_execution_time now means "per request": PHP's own timer
        // (ITIMER_PROF, counting the whole process's CPU time) would end
        // the master after that much CPU over the server's life.
        // SAFETY: on the PHP thread (server start); disarms PHP's timer.
        unsafe { zend_unset_timeout() };
    }
    TRACK.store(timeout.is_some(), Ordering::Relaxed);
    FROM_INI.store(from_ini, Ordering::Relaxed);
    TIMEOUT_MS.store(
        timeout.map_or(0, |d| d.as_millis() as u64),
        Ordering::Relaxed,
    );
}

/// Whether requests are tracked (a `request_timeout` is set).
#[inline]
pub fn tracking() -> bool {
    TRACK.load(Ordering::Relaxed)
}

/// A request's coroutine `cid` answers connection `fd` (only with a deadline).
/// Entries of ended coroutines are dropped when the table grows past
/// twice what was live at the last sweep (amortised O(1) per request).
pub fn track(fd: i64, cid: Cid) {
    if !TRACK.load(Ordering::Relaxed) {
        return;
    }
    BY_FD.with(|m| {
        let mut m = m.borrow_mut();
        m.insert(fd, cid);
        SWEEP_AT.with(|at| {
            if m.len() >= at.get() {
                m.retain(|_, c| coro::exists(*c));
                at.set((m.len() * 2).max(256));
            }
        });
    });
}

/// Request `fd` was answered 504: wake its coroutine if it waits in a
/// sleep, a channel, a join or a `yield` (the wait returns as if it timed
/// out). I/O waits are left alone: their task owns the socket.
pub fn cancel(fd: i64) {
    let Some(cid) = BY_FD.with(|m| m.borrow_mut().remove(&fd)) else {
        return;
    };
    for kind in [
        WaitKind::Sleep,
        WaitKind::Channel,
        WaitKind::Join,
        WaitKind::User,
    ] {
        if coro::resume_kind(cid, kind, Wake::Timeout) {
            return;
        }
    }
}
