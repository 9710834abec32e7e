//! The only code that touches PHP's `\Fiber`: create one, start, resume,
//! suspend, ask whether it ended. Everything goes through PHP method calls,
//! since ext-php-rs has no Fiber C API.

use ext_php_rs::convert::IntoZval;
use ext_php_rs::types::{ZendCallable, ZendObject, Zval};
use ext_php_rs::zend::{ClassEntry, ExecutorGlobals};

extern "C" {
    // ZEND_API bool zend_fiber_switch_blocked(void);
    fn zend_fiber_switch_blocked() -> bool;
}

/// True where PHP refuses to switch fibers (destructors, GC).
pub fn switch_blocked() -> bool {
    // SAFETY: reads a flag of the running engine; no arguments.
    unsafe { zend_fiber_switch_blocked() }
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

    fn call(&self, method: &str) -> Result<(), FiberFailed> {
        let r = self.0.try_call_method(method, vec![]);
        if r.is_err() || ExecutorGlobals::has_exception() {
            return Err(FiberFailed);
        }
        Ok(())
    }

    /// Runs the fiber from its start until it first suspends or ends.
    pub fn start(&self) -> Result<(), FiberFailed> {
        self.call("start")
    }

    /// Continues a suspended fiber until it suspends again or ends.
    pub fn resume(&self) -> Result<(), FiberFailed> {
        self.call("resume")
    }

    pub fn is_terminated(&self) -> bool {
        self.0
            .try_call_method("isTerminated", vec![])
            .ok()
            .and_then(|z| z.bool())
            .unwrap_or(true)
    }

    /// `Fiber::suspend()` from inside the running fiber. Returns an error when
    /// the fiber is being destroyed (PHP throws into it to unwind it): the
    /// caller must then return without touching PHP again.
    pub fn suspend() -> Result<(), FiberFailed> {
        let f = ZendCallable::try_from_name("Fiber::suspend").map_err(|_| FiberFailed)?;
        let r = f.try_call(vec![]);
        if r.is_err() || ExecutorGlobals::has_exception() {
            return Err(FiberFailed);
        }
        Ok(())
    }
}

impl Fiber {
    /// Another owner of the same fiber object (adds a PHP reference).
    pub fn clone_ref(&self) -> Fiber {
        Fiber(self.0.shallow_clone())
    }
}

impl Fiber {
    /// The suspended fiber's backtrace (`ReflectionFiber::getTrace()`).
    pub fn trace(&self, options: i64) -> Option<Zval> {
        let ce = ClassEntry::try_find("ReflectionFiber")?;
        let obj = ZendObject::new(ce);
        obj.try_call_method("__construct", vec![&self.0]).ok()?;
        obj.try_call_method("getTrace", vec![&options]).ok()
    }
}
