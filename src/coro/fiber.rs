//! The only code that touches PHP's `\Fiber`: create one, start, resume,
//! suspend, ask whether it ended, read a suspended fiber's trace.
//!
//! PHP 8.2 exports no C API for fibers, so these are calls of `\Fiber`'s own
//! methods. The hot ones (`start`, `resume`, `suspend`) are looked up once
//! and called with `zend_call_known_function`: no name lookup, no callable
//! parsing, no allocation per switch.

use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use ext_php_rs::convert::IntoZval;
use ext_php_rs::ffi::{self, zend_class_entry, zend_function, zend_object};
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::ClassEntry;

extern "C" {
    // ZEND_API bool zend_fiber_switch_blocked(void);
    fn zend_fiber_switch_blocked() -> bool;
    // extern ZEND_API zend_class_entry *zend_ce_fiber;
    static zend_ce_fiber: *mut zend_class_entry;
}

/// True where PHP refuses to switch fibers (destructors, GC).
pub fn switch_blocked() -> bool {
    // SAFETY: reads a flag of the running engine; no arguments.
    unsafe { zend_fiber_switch_blocked() }
}

#[derive(Clone, Copy)]
struct Methods {
    start: *mut zend_function,
    resume: *mut zend_function,
    suspend: *mut zend_function,
}

/// `\Fiber`'s `start`, `resume` and `suspend`, found once: process-wide
/// statics rather than a thread-local (each thread-local access of a
/// dlopen()ed library is a `__tls_get_addr` call, and this is read on
/// every switch). PHP's class table is the process's (NTS).
static START: AtomicPtr<zend_function> = AtomicPtr::new(ptr::null_mut());
static RESUME: AtomicPtr<zend_function> = AtomicPtr::new(ptr::null_mut());
static SUSPEND: AtomicPtr<zend_function> = AtomicPtr::new(ptr::null_mut());

fn find(name: &str) -> *mut zend_function {
    // SAFETY: zend_ce_fiber is registered at engine startup and its method
    // table lives as long as the process; method entries are IS_PTR zvals
    // holding `zend_function *`.
    unsafe {
        let ce = zend_ce_fiber;
        if ce.is_null() {
            return ptr::null_mut();
        }
        let found =
            ffi::zend_hash_str_find(&(*ce).function_table, name.as_ptr().cast(), name.len());
        if found.is_null() {
            return ptr::null_mut();
        }
        (*found).value.ptr.cast()
    }
}

#[inline]
fn methods() -> Option<Methods> {
    let suspend = SUSPEND.load(Ordering::Acquire);
    let m = Methods {
        start: START.load(Ordering::Relaxed),
        resume: RESUME.load(Ordering::Relaxed),
        suspend,
    };
    if !m.suspend.is_null() {
        return Some(m);
    }
    let m = Methods {
        start: find("start"),
        resume: find("resume"),
        suspend: find("suspend"),
    };
    if m.start.is_null() || m.resume.is_null() || m.suspend.is_null() {
        return None;
    }
    START.store(m.start, Ordering::Relaxed);
    RESUME.store(m.resume, Ordering::Relaxed);
    // Stored last: its being set means all three are.
    SUSPEND.store(m.suspend, Ordering::Release);
    Some(m)
}

/// Calls a `\Fiber` method with no arguments on `object` (null: static).
fn call(f: *mut zend_function, object: *mut zend_object) -> Result<(), FiberFailed> {
    let mut ret = Zval::new();
    // SAFETY: `f` is a live method of \Fiber, `object` is a live \Fiber (or
    // null for the static `suspend`), and we pass no parameters.
    unsafe {
        ffi::zend_call_known_function(
            f,
            object,
            zend_ce_fiber,
            &raw mut ret,
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        );
    }
    drop(ret);
    // Read directly: `ExecutorGlobals::has_exception()` takes ext-php-rs's
    // globals lock (~50 instructions), and this runs on every switch.
    // SAFETY: NTS PHP's executor globals, read on the PHP thread.
    let exception = unsafe { (&raw const ffi::executor_globals.exception).read() };
    if !exception.is_null() {
        return Err(FiberFailed);
    }
    Ok(())
}

/// A `\Fiber` object owned from Rust.
pub struct Fiber(Zval);

/// A failed fiber operation (a `FiberError`, or the fiber was destroyed
/// while suspended). The PHP exception, if any, is left pending.
#[derive(Debug)]
pub struct FiberFailed;

impl Fiber {
    /// `new \Fiber($entry)`, where `$entry` names a PHP function.
    pub fn new(entry: &str) -> Option<Fiber> {
        let ce = ClassEntry::try_find("Fiber")?;
        let obj = ZendObject::new(ce);
        let mut callable = Zval::new();
        callable.set_string(entry, false).ok()?;
        obj.try_call_method("__construct", vec![&callable]).ok()?;
        let mut z = Zval::new();
        obj.set_zval(&mut z, false).ok()?;
        Some(Fiber(z))
    }

    fn object(&self) -> *mut zend_object {
        self.0
            .object()
            .map_or(ptr::null_mut(), |o| ptr::from_ref(o).cast_mut())
    }

    /// Runs the fiber from its start until it first suspends or ends.
    pub fn start(&self) -> Result<(), FiberFailed> {
        let m = methods().ok_or(FiberFailed)?;
        call(m.start, self.object())
    }

    /// Continues a suspended fiber until it suspends again or ends.
    pub fn resume(&self) -> Result<(), FiberFailed> {
        let m = methods().ok_or(FiberFailed)?;
        call(m.resume, self.object())
    }

    /// `Fiber::suspend()` from inside the running fiber. Returns an error when
    /// the fiber is being destroyed (PHP throws into it to unwind it): the
    /// caller must then return without touching PHP again.
    pub fn suspend() -> Result<(), FiberFailed> {
        let m = methods().ok_or(FiberFailed)?;
        call(m.suspend, ptr::null_mut())
    }

    /// Another owner of the same fiber object (adds a PHP reference).
    pub fn clone_ref(&self) -> Fiber {
        Fiber(self.0.shallow_clone())
    }

    /// The suspended fiber's backtrace (`ReflectionFiber::getTrace()`).
    pub fn trace(&self, options: i64) -> Option<Zval> {
        let ce = ClassEntry::try_find("ReflectionFiber")?;
        let obj = ZendObject::new(ce);
        obj.try_call_method("__construct", vec![&self.0]).ok()?;
        obj.try_call_method("getTrace", vec![&options]).ok()
    }
}
