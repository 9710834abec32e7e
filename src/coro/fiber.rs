//! PHP's fiber-switch guard: where PHP forbids switching fibers
//! (destructors run by the garbage collector), coroutines do not switch
//! either.

extern "C" {
    // ZEND_API bool zend_fiber_switch_blocked(void);
    fn zend_fiber_switch_blocked() -> bool;
}

/// True where PHP refuses to switch fibers (destructors, GC).
pub fn switch_blocked() -> bool {
    // SAFETY: reads a flag of the running engine; no arguments.
    unsafe { zend_fiber_switch_blocked() }
}
