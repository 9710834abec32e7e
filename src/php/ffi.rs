//! One guard for every hand-written `extern "C"` entry the Zend engine
//! calls (function handlers installed by hand, module hooks, resource
//! destructors, the VM interrupt, opcode handlers): [`php_fn!`].
//!
//! A Rust panic must never unwind into C (since Rust 1.81 that aborts the
//! process, with every request of the worker). hyper's `ffi_fn!` is the
//! model: the body runs under `catch_unwind` and a panic becomes a fallback.
//! What the fallback is depends on who called:
//! - `throw`: a function handler (PHP is executing a call): the panic
//!   becomes a PHP `Error` exception "rswoole internal error: ..." that the
//!   script can catch, and the handler returns;
//! - `log`: a module hook, destructor or interrupt (no PHP call to fail):
//!   the panic is logged and the declared fallback value is returned.
//!
//! Bailouts (a fatal error, `exit()` in a plain script, the memory limit)
//! are not panics: they `longjmp` through the guard to the nearest
//! `zend_try`, skipping Rust destructors on the way. A body that may bail
//! out (it calls PHP: the original handler it wraps, user code, anything
//! that raises a PHP error a user handler may turn into a fatal) must hold
//! nothing that needs dropping across that call; a `// may_bail:` line
//! above each invocation says whether it can (see docs/internals.md,
//! "Entries from C"). Signal handlers are not wrapped: they only store
//! atomics and `write()`, and `catch_unwind` is not async-signal-safe.

use std::any::Any;

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

/// `throw` policy: the panic of handler `name` as a PHP `Error`.
pub fn throw_panic(name: &str, payload: &(dyn Any + Send)) {
    let msg = format!(
        "rswoole internal error in {name}: {}",
        panic_message(payload)
    );
    crate::rlog!(Error, "{msg}");
    let _ = ext_php_rs::exception::throw(ext_php_rs::zend::ce::error(), &msg);
}

/// `log` policy: the panic of entry `name`, logged.
pub fn log_panic(name: &str, payload: &(dyn Any + Send)) {
    crate::engine::log::write_raw(&format!(
        "PHP Fatal error:  rswoole internal error in {name}: {}\n",
        panic_message(payload)
    ));
}

/// Declares the `extern "C"` entry `name`, which runs the plain Rust
/// function `body` (same arguments) under one guard.
///
/// ```ignore
/// // `throw` or `log` picks the panic policy (module docs).
/// php_fn!(throw unsafe fn handler(ex: *mut zend_execute_data, rv: *mut zval) => handler_body);
/// php_fn!(throw fn method(ex: &mut ExecuteData, rv: &mut Zval) => method_body);
/// // With a return type, `?= value` is what a panic returns.
/// php_fn!(log fn rinit(ty: i32, module: i32) -> i32 => rinit_body ?= -1);
/// ```
/// For handlers other macros generate, the body may also be a block in
/// place of `=> body` (`php_fn!(throw unsafe fn h(ex: .., rv: ..) { .. })`).
/// An `unsafe fn` entry has the contract of its `unsafe fn` body (the
/// arguments are what PHP passes to that kind of entry).
macro_rules! php_fn {
    ($(#[$m:meta])* $policy:ident $vis:vis unsafe fn $name:ident($($arg:ident: $ty:ty),* $(,)?) => $body:ident) => {
        $(#[$m])*
        $vis unsafe extern "C" fn $name($($arg: $ty),*) {
            // SAFETY: the entry's contract is its body's (see php_fn!).
            let run = ::std::panic::AssertUnwindSafe(move || unsafe { $body($($arg),*) });
            if let Err(p) = ::std::panic::catch_unwind(run) {
                $crate::php::ffi::php_fn!(@policy $policy, stringify!($name), &*p);
            }
        }
    };
    ($(#[$m:meta])* $policy:ident $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) => $body:ident) => {
        $(#[$m])*
        $vis extern "C" fn $name($($arg: $ty),*) {
            let run = ::std::panic::AssertUnwindSafe(move || $body($($arg),*));
            if let Err(p) = ::std::panic::catch_unwind(run) {
                $crate::php::ffi::php_fn!(@policy $policy, stringify!($name), &*p);
            }
        }
    };
    ($(#[$m:meta])* $policy:ident $vis:vis unsafe fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty => $body:ident ?= $fallback:expr) => {
        $(#[$m])*
        $vis unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            // SAFETY: the entry's contract is its body's (see php_fn!).
            let run = ::std::panic::AssertUnwindSafe(move || unsafe { $body($($arg),*) });
            match ::std::panic::catch_unwind(run) {
                Ok(r) => r,
                Err(p) => {
                    $crate::php::ffi::php_fn!(@policy $policy, stringify!($name), &*p);
                    $fallback
                }
            }
        }
    };
    ($(#[$m:meta])* $policy:ident $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty => $body:ident ?= $fallback:expr) => {
        $(#[$m])*
        $vis extern "C" fn $name($($arg: $ty),*) -> $ret {
            let run = ::std::panic::AssertUnwindSafe(move || $body($($arg),*));
            match ::std::panic::catch_unwind(run) {
                Ok(r) => r,
                Err(p) => {
                    $crate::php::ffi::php_fn!(@policy $policy, stringify!($name), &*p);
                    $fallback
                }
            }
        }
    };
    // A body written in place (for handlers other macros generate).
    ($(#[$m:meta])* $policy:ident $vis:vis unsafe fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$m])*
        $vis unsafe extern "C" fn $name($($arg: $ty),*) {
            let run = ::std::panic::AssertUnwindSafe(move || $body);
            if let Err(p) = ::std::panic::catch_unwind(run) {
                $crate::php::ffi::php_fn!(@policy $policy, stringify!($name), &*p);
            }
        }
    };
    (@policy throw, $name:expr, $p:expr) => {
        $crate::php::ffi::throw_panic($name, $p)
    };
    (@policy log, $name:expr, $p:expr) => {
        $crate::php::ffi::log_panic($name, $p)
    };
}
pub(crate) use php_fn;
