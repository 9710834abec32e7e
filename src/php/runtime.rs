//! `Swoole\Runtime` (`enableCoroutine`, `setHookFlags`, `getHookFlags`) and
//! the function-table half of the runtime hooks: swapping the handler of a
//! PHP internal function for one that suspends only the calling coroutine,
//! keeping the original to restore and to call outside a coroutine.
//!
//! The hooks themselves live in `hook_sleep.rs` (SLEEP), `hook_stream.rs`
//! (TCP/UDP/UNIX/UDG transports), `hook_net.rs` (NET_FUNCTION's
//! `gethostbyname`), `hook_select.rs` (STREAM_FUNCTION's
//! `stream_select`), `hook_sockets.rs` (SOCKETS), `hook_proc.rs` (PROC), `hook_file.rs` (FILE and STDIO) and `hook_curl.rs` (CURL and NATIVE_CURL). Hooks are process state: a worker inherits the master's
//! at fork, and each process may change its own.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Mutex;

use ext_php_rs::ffi::{zend_execute_data, zend_function, zend_hash_str_find, zval};
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

/// A PHP internal function's handler.
pub type Handler = unsafe extern "C" fn(*mut zend_execute_data, *mut zval);

pub const HOOK_TCP: i64 = 1 << 1;
pub const HOOK_UDP: i64 = 1 << 2;
pub const HOOK_UNIX: i64 = 1 << 3;
pub const HOOK_UDG: i64 = 1 << 4;
pub const HOOK_STREAM_FUNCTION: i64 = 1 << 7;
pub const HOOK_FILE: i64 = 1 << 8;
pub const HOOK_STDIO: i64 = 1 << 15;
pub const HOOK_SLEEP: i64 = 1 << 9;
pub const HOOK_PROC: i64 = 1 << 10;
pub const HOOK_SOCKETS: i64 = 1 << 14;
pub const HOOK_CURL: i64 = 1 << 11;
pub const HOOK_NATIVE_CURL: i64 = 1 << 12;
pub const HOOK_NET_FUNCTION: i64 = 1 << 21;
/// `SWOOLE_HOOK_ALL`.
pub const HOOK_ALL: i64 = 2_143_285_247;

/// `ZEND_INTERNAL_FUNCTION`.
const ZEND_INTERNAL_FUNCTION: u8 = 1;

// Process-wide, not thread-local: the function table is the process's,
// and a `Process` child forked inside a loop runs PHP on a new thread.
/// The flags last given to `setHookFlags`/`enableCoroutine` (what
/// `getHookFlags` reports).
static FLAGS: AtomicI64 = AtomicI64::new(0);
/// The flags whose hooks are installed now.
static APPLIED: AtomicI64 = AtomicI64::new(0);
/// Set once flags were given (`enableCoroutine`, `setHookFlags`,
/// `hook_flags`, or a first `Co\run()`): until then `Co\run()` turns on
/// `SWOOLE_HOOK_ALL`, as Swoole's `Co\run()` does.
static CHOSEN: AtomicBool = AtomicBool::new(false);
/// Original handlers of the functions hooked now, by name.
static ORIGINAL: Mutex<Vec<(&'static str, Handler)>> = Mutex::new(Vec::new());

fn originals() -> std::sync::MutexGuard<'static, Vec<(&'static str, Handler)>> {
    ORIGINAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn original_of(name: &str) -> Option<Handler> {
    originals()
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, h)| *h)
}

/// True where a hook may suspend: inside a coroutine, and not where PHP
/// forbids switching fibers (a destructor run by the engine).
pub fn in_coroutine() -> bool {
    crate::coro::current() >= 0 && !crate::coro::fiber::switch_blocked()
}

/// The internal function `name` (lowercase) in the function table.
fn find_function(name: &str) -> Option<*mut zend_function> {
    // SAFETY: CG(function_table) (NTS: the `compiler_globals` symbol) is the
    // process's function table, read on the PHP thread; the key is passed
    // with its length.
    unsafe {
        let table = ext_php_rs::ffi::compiler_globals.function_table;
        if table.is_null() {
            return None;
        }
        let zv = zend_hash_str_find(table, name.as_ptr().cast(), name.len());
        if zv.is_null() {
            return None;
        }
        let f = (*zv).value.ptr.cast::<zend_function>();
        if f.is_null() || (*f).type_ != ZEND_INTERNAL_FUNCTION {
            return None;
        }
        Some(f)
    }
}

/// Replaces `name`'s handler with `new`, keeping the original. False when
/// the function does not exist (its extension is not loaded).
pub fn hook_function(name: &'static str, new: Handler) -> bool {
    if original_of(name).is_some() {
        return true;
    }
    let Some(f) = find_function(name) else {
        return false;
    };
    // SAFETY: `f` is an internal function of the persistent function table
    // (checked in `find_function`); only its handler pointer is swapped, on
    // the PHP thread, between calls.
    let old = unsafe { (*f).internal_function.handler.replace(new) };
    match old {
        Some(old) => {
            originals().push((name, old));
            true
        }
        None => {
            // SAFETY: as above; puts the (absent) handler back.
            unsafe { (*f).internal_function.handler = None };
            false
        }
    }
}

/// Puts `name`'s original handler back.
pub fn unhook_function(name: &'static str) {
    let old = {
        let mut o = originals();
        let Some(i) = o.iter().position(|(n, _)| *n == name) else {
            return;
        };
        o.remove(i).1
    };
    if let Some(f) = find_function(name) {
        // SAFETY: as in `hook_function`.
        unsafe { (*f).internal_function.handler = Some(old) };
    }
}

/// Runs `name`'s original handler on this call frame.
///
/// # Safety
/// `ex` and `rv` are the frame and return value PHP passed to the hook.
pub unsafe fn call_original(name: &str, ex: *mut zend_execute_data, rv: *mut zval) {
    let orig = original_of(name);
    let orig = orig.or_else(|| {
        // Unhooked meanwhile: the table holds the original again.
        // SAFETY: as in `hook_function`, read only.
        find_function(name).and_then(|f| unsafe { (*f).internal_function.handler })
    });
    if let Some(h) = orig {
        // SAFETY: the caller's frame, handed on unchanged to the handler
        // PHP itself registered for this function.
        unsafe { h(ex, rv) };
    }
}

/// Argument `n` (0-based) of a call frame, if passed.
///
/// # Safety
/// `ex` is a live call frame.
pub unsafe fn arg<'a>(ex: *mut zend_execute_data, n: usize) -> Option<&'a mut Zval> {
    // SAFETY: the caller's live frame; ExecuteData is a transparent view.
    let ex = unsafe { &*ex.cast::<ext_php_rs::zend::ExecuteData>() };
    // SAFETY: u2 is num_args in a call frame.
    let num = unsafe { ex.This.u2.num_args } as usize;
    if n >= num {
        return None;
    }
    // SAFETY: n < num_args, so the slot holds an argument.
    unsafe { ex.zend_call_arg(n) }
}

/// Number of arguments of a call frame.
///
/// # Safety
/// `ex` is a live call frame.
pub unsafe fn num_args(ex: *mut zend_execute_data) -> usize {
    // SAFETY: the caller's live frame.
    unsafe { (*ex).This.u2.num_args as usize }
}

/// Installs the hooks `flags` asks for and removes the others.
pub fn apply(flags: i64) -> bool {
    CHOSEN.store(true, Ordering::SeqCst);
    install(flags)
}

fn install(flags: i64) -> bool {
    let mut flags = flags;
    // Swoole drops SWOOLE_HOOK_SOCKETS when ext-sockets is not loaded.
    if find_function("socket_create").is_none() {
        flags &= !HOOK_SOCKETS;
    }
    FLAGS.store(flags, Ordering::SeqCst);
    let before = APPLIED.load(Ordering::SeqCst);
    let on = |bit: i64| flags & bit != 0;
    let was = |bit: i64| before & bit != 0;
    if on(HOOK_SLEEP) != was(HOOK_SLEEP) {
        super::hook_sleep::set(on(HOOK_SLEEP));
    }
    if on(HOOK_PROC) != was(HOOK_PROC) {
        super::hook_proc::set(on(HOOK_PROC));
    }
    if on(HOOK_FILE) != was(HOOK_FILE) || on(HOOK_STDIO) != was(HOOK_STDIO) {
        super::hook_file::set(on(HOOK_FILE), on(HOOK_STDIO));
    }
    if on(HOOK_NET_FUNCTION) != was(HOOK_NET_FUNCTION) {
        super::hook_net::set(on(HOOK_NET_FUNCTION));
    }
    if on(HOOK_STREAM_FUNCTION) != was(HOOK_STREAM_FUNCTION) {
        super::hook_select::set(on(HOOK_STREAM_FUNCTION));
    }
    if on(HOOK_SOCKETS) != was(HOOK_SOCKETS) {
        super::hook_sockets::set(on(HOOK_SOCKETS));
    }
    let curl = |f: i64| f & (HOOK_CURL | HOOK_NATIVE_CURL) != 0;
    if curl(flags) != curl(before) {
        super::hook_curl::set(curl(flags));
    }
    super::hook_stream::set(
        flags
            & (HOOK_TCP
                | HOOK_UDP
                | HOOK_UNIX
                | HOOK_UDG
                | super::hook_stream::HOOK_SSL
                | super::hook_stream::HOOK_TLS),
    );
    APPLIED.store(flags, Ordering::SeqCst);
    true
}

/// The flags in effect (`Runtime::getHookFlags()`).
pub fn flags() -> i64 {
    FLAGS.load(Ordering::SeqCst)
}

/// The server's `hook_flags` setting, applied by `start()` before the
/// workers fork (each inherits the hooks).
pub fn apply_server_setting(setting: Option<&ZendHashTable>) {
    let Some(z) = setting.and_then(|s| s.get("hook_flags")) else {
        return;
    };
    let flags = z
        .long()
        .or_else(|| z.double().map(|d| d as i64))
        .or_else(|| z.bool().map(|b| if b { HOOK_ALL } else { 0 }));
    if let Some(flags) = flags {
        apply(flags);
    }
}

#[php_class]
#[php(name = "Swoole\\Runtime")]
pub struct Runtime;

#[php_impl]
impl Runtime {
    /// Enables the hooks in `$flags` (default `SWOOLE_HOOK_ALL`); 0 or
    /// `false` removes every hook.
    pub fn enable_coroutine(flags: Option<&Zval>) -> bool {
        let flags = match flags {
            None => HOOK_ALL,
            Some(z) => z
                .long()
                .or_else(|| z.bool().map(i64::from))
                .or_else(|| z.double().map(|d| d as i64))
                .unwrap_or(HOOK_ALL),
        };
        apply(flags)
    }

    pub fn get_hook_flags() -> i64 {
        flags()
    }

    pub fn set_hook_flags(flags: i64) -> bool {
        apply(flags)
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Runtime>()
}

/// Request shutdown: put every original back (a CLI process ends anyway;
/// this keeps the function table as PHP built it).
pub fn shutdown() {
    install(0);
    for name in CO_RUN {
        unhook_function(name);
    }
}

/// `Swoole\Coroutine\run()` and `Co\run()` (lowercase, as in the table).
const CO_RUN: [&str; 2] = ["swoole\\coroutine\\run", "co\\run"];

/// Module startup: `Co\run()` applies Swoole's default hooks first (see
/// `CHOSEN`); the wrapper then runs rswoole's own `Co\run()`.
pub fn after_classes() {
    super::hook_file::startup();
    for name in CO_RUN {
        hook_function(name, co_run);
    }
}

// may_bail: yes, it runs `Co\run()` and so user code.
crate::php::ffi::php_fn!(throw unsafe fn co_run(ex: *mut zend_execute_data, rv: *mut zval) => co_run_body);
unsafe fn co_run_body(ex: *mut zend_execute_data, rv: *mut zval) {
    if !CHOSEN.load(Ordering::SeqCst)
        && crate::coro::current() < 0
        && crate::engine::worker::current_worker_id() < 0
    {
        apply(HOOK_ALL);
    }
    // SAFETY: the called function's name picks its original; the frame and
    // return slot are PHP's for this call.
    unsafe {
        let name = if is_short(ex) { CO_RUN[1] } else { CO_RUN[0] };
        call_original(name, ex, rv);
    }
}

/// True when the frame calls `Co\run` (not `Swoole\Coroutine\run`).
///
/// # Safety
/// `ex` is a live call frame.
unsafe fn is_short(ex: *mut zend_execute_data) -> bool {
    // SAFETY: a live frame's `func` is the called function.
    unsafe {
        let f = (*ex).func;
        if f.is_null() || (*f).common.function_name.is_null() {
            return false;
        }
        let name = &*(*f)
            .common
            .function_name
            .cast::<ext_php_rs::types::ZendStr>();
        name.as_bytes().len() == 6
    }
}
