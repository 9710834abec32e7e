//! SWOOLE_HOOK_STREAM_FUNCTION's `stream_select` and `stream_socket_pair`
//! (whose streams get the hooked socket ops). `stream_select`: in a coroutine, PHP's own
//! `stream_select` runs with a zero timeout, and while nothing is ready the
//! coroutine sleeps a little (1 ms, growing to 10 ms) and tries again until
//! the caller's timeout. The arrays are put back before each try (PHP
//! replaces them with the ready subset). Outside a coroutine PHP's own
//! function runs.

use std::time::{Duration, Instant};

use ext_php_rs::ffi::{zend_execute_data, zval};
use ext_php_rs::types::Zval;

use super::runtime::{self, arg, call_original, in_coroutine, num_args};

pub fn set(on: bool) {
    if on {
        runtime::hook_function("stream_select", stream_select);
        runtime::hook_function("stream_socket_pair", stream_socket_pair);
    } else {
        runtime::unhook_function("stream_select");
        runtime::unhook_function("stream_socket_pair");
    }
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn stream_socket_pair(ex: *mut zend_execute_data, rv: *mut zval) => stream_socket_pair_body);
/// `stream_socket_pair()`: PHP makes the pair; both streams then get the
/// hooked socket ops (`hook_stream`), so reading and writing them in a
/// coroutine suspends only that coroutine.
unsafe fn stream_socket_pair_body(ex: *mut zend_execute_data, rv: *mut zval) {
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { call_original("stream_socket_pair", ex, rv) };
    // SAFETY: PHP's return slot for this call.
    let rv = unsafe { &*rv.cast::<Zval>() };
    let Some(pair) = rv.array() else {
        return;
    };
    for (_, z) in pair.iter() {
        if let Some(stream) = super::hook_stream::stream_of(z) {
            // SAFETY: a socket stream PHP just created for this pair.
            unsafe { super::hook_stream::adopt(stream) };
        }
    }
}

/// How many distinct streams the three (already reduced) arrays hold.
///
/// # Safety
/// `ex` is a live call frame of `stream_select`.
unsafe fn distinct_ready(ex: *mut zend_execute_data) -> i64 {
    let mut seen: Vec<usize> = Vec::new();
    for i in 0..3 {
        // SAFETY: the caller's frame.
        let Some(z) = (unsafe { arg(ex, i) }) else {
            continue;
        };
        let Some(arr) = z.dereference().array() else {
            continue;
        };
        for (_, v) in arr.iter() {
            let key = match super::hook_stream::stream_of(v) {
                Some(s) => s as usize,
                None => std::ptr::from_ref(v.dereference()) as usize,
            };
            if !seen.contains(&key) {
                seen.push(key);
            }
        }
    }
    seen.len() as i64
}

/// The caller's timeout: `None` is forever (`$seconds === null`).
///
/// # Safety
/// `ex` is a live call frame.
unsafe fn timeout(ex: *mut zend_execute_data) -> Option<Option<Duration>> {
    // SAFETY: the caller's frame.
    let secs = unsafe { arg(ex, 3) }?;
    if secs.is_null() {
        return Some(None);
    }
    let s = secs.long().filter(|s| *s >= 0)?;
    // SAFETY: as above.
    let us = match unsafe { arg(ex, 4) } {
        Some(z) => z.long().filter(|u| *u >= 0)?,
        None => 0,
    };
    Some(Some(
        Duration::from_secs(s as u64) + Duration::from_micros(us as u64),
    ))
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn stream_select(ex: *mut zend_execute_data, rv: *mut zval) => stream_select_body);
unsafe fn stream_select_body(ex: *mut zend_execute_data, rv: *mut zval) {
    let limit = if in_coroutine() {
        // SAFETY: PHP's frame for this call.
        unsafe { timeout(ex) }
    } else {
        None
    };
    let Some(limit) = limit.filter(|l| l.is_none_or(|d| !d.is_zero())) else {
        // SAFETY: the frame and return slot PHP gave this hook.
        return unsafe { call_original("stream_select", ex, rv) };
    };
    let deadline = limit.map(|d| Instant::now() + d);
    // The three arrays as given (each argument is a reference).
    let saved: Vec<Option<Zval>> = (0..3)
        .map(|i| {
            // SAFETY: as above.
            unsafe { arg(ex, i) }.map(|z| match z.reference() {
                Some(inner) => inner.shallow_clone(),
                None => z.shallow_clone(),
            })
        })
        .collect();
    // Zero timeout for PHP's own call.
    // SAFETY: as above; argument slots of this frame are overwritten.
    unsafe {
        if let Some(z) = arg(ex, 3) {
            z.set_long(0);
        }
        if num_args(ex) > 4 {
            if let Some(z) = arg(ex, 4) {
                z.set_long(0);
            }
        }
    }
    let mut pause = Duration::from_millis(1);
    loop {
        // SAFETY: as above.
        unsafe { call_original("stream_select", ex, rv) };
        // SAFETY: PHP's return slot for this call.
        let got = unsafe { &mut *rv.cast::<Zval>() };
        if got.long().is_some_and(|n| n > 0) {
            // Swoole counts each ready stream once, whichever arrays hold it.
            // SAFETY: as above.
            let n = unsafe { distinct_ready(ex) };
            got.set_long(n);
            return;
        }
        if got.long() != Some(0) {
            return;
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            return;
        }
        let nap = deadline.map_or(pause, |d| pause.min(d - now));
        if crate::coro::sleep(nap).is_err() {
            return;
        }
        pause = (pause * 2).min(Duration::from_millis(10));
        for (i, s) in saved.iter().enumerate() {
            // SAFETY: as above.
            let (Some(s), Some(z)) = (s, unsafe { arg(ex, i) }) else {
                continue;
            };
            match z.reference_mut() {
                Some(inner) => *inner = s.shallow_clone(),
                None => *z = s.shallow_clone(),
            }
        }
    }
}
