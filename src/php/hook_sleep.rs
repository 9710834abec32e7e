//! SWOOLE_HOOK_SLEEP: `sleep`, `usleep`, `time_nanosleep` and
//! `time_sleep_until` suspend only the calling coroutine. Outside a
//! coroutine, and for any argument the fast path does not take (a string,
//! a negative number: PHP's own errors), PHP's original handler runs.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ext_php_rs::ffi::{zend_execute_data, zval};
use ext_php_rs::types::Zval;

use super::runtime::{self, arg, call_original, in_coroutine};

const NAMES: [&str; 4] = ["sleep", "usleep", "time_nanosleep", "time_sleep_until"];

/// Installs (`true`) or removes the four hooks.
pub fn set(on: bool) {
    let hooks: [runtime::Handler; 4] = [sleep, usleep, time_nanosleep, time_sleep_until];
    for (name, h) in NAMES.into_iter().zip(hooks) {
        if on {
            runtime::hook_function(name, h);
        } else {
            runtime::unhook_function(name);
        }
    }
}

/// An integer argument ≥ 0 (the only kind the hooks handle themselves).
///
/// # Safety
/// `ex` is a live call frame.
unsafe fn non_negative(ex: *mut zend_execute_data, n: usize) -> Option<i64> {
    // SAFETY: the caller's frame.
    let z = unsafe { arg(ex, n) }?;
    z.long().filter(|v| *v >= 0)
}

/// # Safety
/// `rv` is the return value PHP passed to the handler.
unsafe fn ret<'a>(rv: *mut zval) -> &'a mut Zval {
    // SAFETY: Zval is a transparent wrapper of zval; `rv` is valid for the call.
    unsafe { &mut *rv.cast::<Zval>() }
}

/// Sleeps in the coroutine; false when it could not suspend (then the
/// caller runs PHP's own function).
/// A hooked sleep; a wait ended by `Coroutine::cancel($cid, true)` or
/// `setTimeLimit()` throws the exception owed (the call still counts as
/// done).
fn co_sleep(d: Duration) -> bool {
    let ok = crate::coro::sleep(d).is_ok();
    if let Some(e) = crate::php::coroutine::take_canceled_exception() {
        e.throw();
    }
    ok
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn sleep(ex: *mut zend_execute_data, rv: *mut zval) => sleep_body);
unsafe fn sleep_body(ex: *mut zend_execute_data, rv: *mut zval) {
    if in_coroutine() {
        // SAFETY: PHP's frame for this call.
        if let Some(s) = unsafe { non_negative(ex, 0) } {
            if co_sleep(Duration::from_secs(s as u64)) {
                // SAFETY: PHP's return slot for this call.
                unsafe { ret(rv) }.set_long(0);
                return;
            }
        }
    }
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { call_original("sleep", ex, rv) }
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn usleep(ex: *mut zend_execute_data, rv: *mut zval) => usleep_body);
unsafe fn usleep_body(ex: *mut zend_execute_data, rv: *mut zval) {
    if in_coroutine() {
        // SAFETY: PHP's frame for this call.
        if let Some(us) = unsafe { non_negative(ex, 0) } {
            if co_sleep(Duration::from_micros(us as u64)) {
                return;
            }
        }
    }
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { call_original("usleep", ex, rv) }
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn time_nanosleep(ex: *mut zend_execute_data, rv: *mut zval) => time_nanosleep_body);
unsafe fn time_nanosleep_body(ex: *mut zend_execute_data, rv: *mut zval) {
    if in_coroutine() {
        // SAFETY: PHP's frame for this call.
        let (s, ns) = unsafe { (non_negative(ex, 0), non_negative(ex, 1)) };
        if let (Some(s), Some(ns)) = (s, ns) {
            if ns < 1_000_000_000 && co_sleep(Duration::new(s as u64, ns as u32)) {
                // SAFETY: PHP's return slot for this call.
                unsafe { ret(rv) }.set_bool(true);
                return;
            }
        }
    }
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { call_original("time_nanosleep", ex, rv) }
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn time_sleep_until(ex: *mut zend_execute_data, rv: *mut zval) => time_sleep_until_body);
unsafe fn time_sleep_until_body(ex: *mut zend_execute_data, rv: *mut zval) {
    if in_coroutine() {
        // SAFETY: PHP's frame for this call.
        let target = unsafe { arg(ex, 0) }.and_then(|z| z.double().or(z.long().map(|l| l as f64)));
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        // A time in the past: PHP's own warning and `false`, without sleeping.
        if let Some(t) = target.filter(|t| *t > now) {
            if co_sleep(Duration::from_secs_f64(t - now)) {
                // SAFETY: PHP's return slot for this call.
                unsafe { ret(rv) }.set_bool(true);
                return;
            }
        }
    }
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { call_original("time_sleep_until", ex, rv) }
}
