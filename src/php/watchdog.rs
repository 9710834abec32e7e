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
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ext_php_rs::error::php_error;
use ext_php_rs::ffi::{zend_execute_data, zend_interrupt_function, ZEND_USER_FUNCTION};
use ext_php_rs::flags::ErrorType;
use ext_php_rs::types::ZendStr;
use ext_php_rs::zend::ExecutorGlobals;

use crate::coro::{self, Cid, WaitKind, Wake};
use crate::engine::watchdog;

type InterruptFn = unsafe extern "C" fn(*mut zend_execute_data);

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
    watchdog::set_coroutine_counter(|| coro::count() as u64);
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

unsafe extern "C" fn on_interrupt(ex: *mut zend_execute_data) {
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
        crate::engine::stats::set_exit_reason(crate::engine::stats::ExitReason::RequestTimeout);
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
    let mut frame = ex;
    let mut n = 0;
    // SAFETY: on the PHP thread inside the interrupt hook: `ex` and its
    // `prev_execute_data` chain are live frames of the running VM, and
    // their functions, names and oplines are owned by the engine for as
    // long as the frames exist.
    unsafe {
        while !frame.is_null() && n < 64 {
            let f = (*frame).func;
            if !f.is_null() {
                let name = zstr((*f).common.function_name);
                let scope = (*f).common.scope;
                let class = if scope.is_null() {
                    String::new()
                } else {
                    format!("{}::", zstr((*scope).name))
                };
                let func = if name.is_empty() {
                    "{main}".to_string()
                } else {
                    format!("{class}{name}()")
                };
                if u32::from((*f).type_) == ZEND_USER_FUNCTION {
                    let file = zstr((*f).op_array.filename);
                    let line = if (*frame).opline.is_null() {
                        (*f).op_array.line_start
                    } else {
                        (*(*frame).opline).lineno
                    };
                    let _ = writeln!(out, "  #{n} {file}:{line} {func}");
                } else if name.is_empty() {
                    // The bottom frame of a fiber: nothing to name.
                    frame = (*frame).prev_execute_data;
                    continue;
                } else {
                    let _ = writeln!(out, "  #{n} [internal] {func}");
                }
                n += 1;
            }
            frame = (*frame).prev_execute_data;
        }
    }
    out
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
    TRACK.store(timeout.is_some(), Ordering::Relaxed);
    FROM_INI.store(from_ini, Ordering::Relaxed);
    TIMEOUT_MS.store(
        timeout.map_or(0, |d| d.as_millis() as u64),
        Ordering::Relaxed,
    );
}

/// A request's coroutine `cid` answers connection `fd` (only with a deadline).
pub fn track(fd: i64, cid: Cid) {
    if TRACK.load(Ordering::Relaxed) {
        BY_FD.with(|m| m.borrow_mut().insert(fd, cid));
    }
}

/// The coroutine of connection `fd`'s request ended.
pub fn untrack(fd: i64) {
    if TRACK.load(Ordering::Relaxed) {
        BY_FD.with(|m| m.borrow_mut().remove(&fd));
    }
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
