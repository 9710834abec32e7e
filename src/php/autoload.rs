//! Class autoloading inside coroutines: one coroutine runs the autoloaders
//! for a class name, the others that ask for the same class meanwhile wait
//! for it and then get its result, as in Swoole.
//!
//! PHP guards against recursive autoloading with `EG(in_autoload)`, a set
//! of the lower-case names being loaded. That set is per process, not per
//! coroutine: when an autoloader switches coroutines (a hooked `require`
//! over a network file system, a `Co::sleep()`), a second coroutine asking
//! for the same class would find the name in the set and get "Class not
//! found". So we wrap `zend_autoload` (the function pointer PHP calls after
//! adding the name to the set): it takes the name out of the set again and
//! keeps its own table of names being loaded, with the coroutine that loads
//! each and those waiting for it. A coroutine that asks for a name it is
//! itself loading gets nothing, as PHP's guard would have given it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ext_php_rs::ffi::{zend_class_entry, zend_hash_del, zend_hash_find, zend_string};

use crate::coro::{self, Cid, WaitKind, Wake};

type AutoloadFn = unsafe extern "C" fn(*mut zend_string, *mut zend_string) -> *mut zend_class_entry;

extern "C" {
    // ZEND_API zend_class_entry *(*zend_autoload)(zend_string *name, zend_string *lc_name);
    static mut zend_autoload: Option<AutoloadFn>;
}

/// PHP's own `zend_autoload` (SPL's), as a `usize` (0: none was set).
static ORIGINAL: AtomicUsize = AtomicUsize::new(0);

/// A name being loaded: by which coroutine, and who waits for it.
struct Loading {
    name: Vec<u8>,
    loader: Cid,
    waiters: Vec<Cid>,
}

/// Names being loaded right now (a handful at most: a `Vec` is enough).
/// A process-wide static, not a thread-local: PHP is single-threaded here
/// (NTS) and the thread-local budget is spent (`make tls-check`).
static LOADING: Mutex<Vec<Loading>> = Mutex::new(Vec::new());

fn loading() -> std::sync::MutexGuard<'static, Vec<Loading>> {
    LOADING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Installs the wrapper. Called once at module startup, after SPL set its
/// autoloader (SPL is built in and starts before any shared extension).
pub fn install() {
    // SAFETY: module startup is single-threaded; `zend_autoload` is a plain
    // function-pointer global of the engine, read and replaced before any
    // request runs.
    unsafe {
        let cur = zend_autoload;
        if let Some(f) = cur {
            ORIGINAL.store(f as usize, Ordering::Relaxed);
            zend_autoload = Some(coroutine_autoload);
        }
    }
}

fn original() -> Option<AutoloadFn> {
    let p = ORIGINAL.load(Ordering::Relaxed);
    // SAFETY: `p` is 0 or the value of a non-null `AutoloadFn` stored by
    // `install`.
    (p != 0).then(|| unsafe { std::mem::transmute::<usize, AutoloadFn>(p) })
}

// may_bail: yes, the original runs user autoloaders.
crate::php::ffi::php_fn!(log unsafe fn coroutine_autoload(name: *mut zend_string, lc_name: *mut zend_string) -> *mut zend_class_entry => autoload_body ?= std::ptr::null_mut());

/// # Safety
/// Called by the engine as `zend_autoload`: `name` and `lc_name` are live
/// strings, and `lc_name` was just added to `EG(in_autoload)`.
unsafe fn autoload_body(
    name: *mut zend_string,
    lc_name: *mut zend_string,
) -> *mut zend_class_entry {
    let Some(orig) = original() else {
        return std::ptr::null_mut();
    };
    let me = coro::current();
    if me < 0 {
        // SAFETY: the engine's own arguments, passed on.
        return unsafe { orig(name, lc_name) };
    }
    // SAFETY: `lc_name` is a live zend_string (the engine's argument).
    let key = unsafe { super::zstr_bytes(lc_name) }.to_vec();
    // SAFETY: EG(in_autoload) is the set the engine added `lc_name` to
    // before calling us (PHP thread); deleting a key is always allowed.
    unsafe {
        let set = ext_php_rs::ffi::executor_globals.in_autoload;
        if !set.is_null() {
            zend_hash_del(set, lc_name);
        }
    }
    {
        let mut l = loading();
        if let Some(e) = l.iter_mut().find(|e| e.name == key) {
            if e.loader == me {
                // Asked again by its own autoloader: PHP's guard says no.
                return std::ptr::null_mut();
            }
            e.waiters.push(me);
            drop(l);
            let woke = coro::wait(WaitKind::Channel, None);
            loading()
                .iter_mut()
                .for_each(|e| e.waiters.retain(|c| *c != me));
            if woke.is_err() {
                return std::ptr::null_mut();
            }
            // SAFETY: `lc_name` is still the engine's live argument.
            return unsafe { loaded_class(lc_name) };
        }
        l.push(Loading {
            name: key.clone(),
            loader: me,
            waiters: Vec::new(),
        });
    }
    // SAFETY: the engine's own arguments, passed on.
    let ce = unsafe { orig(name, lc_name) };
    let waiters = {
        let mut l = loading();
        match l.iter().position(|e| e.name == key && e.loader == me) {
            Some(i) => l.swap_remove(i).waiters,
            None => Vec::new(),
        }
    };
    for w in waiters {
        // A failed autoload may leave an exception pending here; it is this
        // coroutine's, so the waiter must not see it while it runs.
        // SAFETY: EG(exception) is read and restored on the PHP thread.
        let pending = unsafe { take_exception() };
        coro::resume_kind(w, WaitKind::Channel, Wake::Resumed);
        // SAFETY: as above; the waiter ran to its next switch and left no
        // exception of its own pending in between (a switch requires that).
        unsafe { restore_exception(pending) };
    }
    ce
}

/// The class registered under `lc_name`, if the loader defined it.
///
/// # Safety
/// PHP thread; `lc_name` is a live zend_string.
unsafe fn loaded_class(lc_name: *mut zend_string) -> *mut zend_class_entry {
    // SAFETY: EG(class_table) maps lower-case names to class entries
    // (IS_PTR zvals), as the engine's own lookup reads it.
    unsafe {
        let table = ext_php_rs::ffi::executor_globals.class_table;
        if table.is_null() {
            return std::ptr::null_mut();
        }
        let z = zend_hash_find(table, lc_name);
        if z.is_null() {
            return std::ptr::null_mut();
        }
        (*z).value.ptr.cast::<zend_class_entry>()
    }
}

/// Takes the pending exception out of `EG(exception)`.
///
/// # Safety
/// PHP thread.
unsafe fn take_exception() -> *mut ext_php_rs::ffi::zend_object {
    // SAFETY: a plain field of the executor globals, swapped out and put
    // back by `restore_exception` before PHP looks at it again.
    unsafe {
        let eg = &raw mut ext_php_rs::ffi::executor_globals;
        std::mem::replace(&mut (*eg).exception, std::ptr::null_mut())
    }
}

/// Puts back what `take_exception` took (when something was pending).
///
/// # Safety
/// PHP thread.
unsafe fn restore_exception(e: *mut ext_php_rs::ffi::zend_object) {
    if e.is_null() {
        return;
    }
    // SAFETY: as in `take_exception`.
    unsafe {
        let eg = &raw mut ext_php_rs::ffi::executor_globals;
        if (*eg).exception.is_null() {
            (*eg).exception = e;
        }
    }
}
