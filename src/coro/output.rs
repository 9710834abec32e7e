//! Output buffers per coroutine: each coroutine has its own `ob_*` stack,
//! as in Swoole. PHP keeps the stack in one global (`output_globals`); on
//! every switch into a coroutine the switcher's stack is put aside and the
//! coroutine's own (fresh the first time) put in its place, and the other
//! way round when the coroutine suspends or ends. What a coroutine leaves
//! buffered when it ends is flushed, as Swoole does.

use std::os::raw::{c_int, c_void};

use ext_php_rs::ffi;

/// PHP 8.2's `zend_output_globals` (main/php_output.h).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct OutputGlobals {
    handlers: ffi::zend_stack,
    active: *mut c_void,
    running: *mut c_void,
    output_start_filename: *mut ffi::zend_string,
    output_start_lineno: c_int,
    flags: c_int,
}

extern "C" {
    // PHPAPI ZEND_EXTERN_MODULE_GLOBALS(output): NTS builds export the struct.
    static mut output_globals: OutputGlobals;
    // ZEND_API void zend_stack_destroy(zend_stack *stack);
    fn zend_stack_destroy(stack: *mut ffi::zend_stack);
}

/// Takes the running context's output state out and leaves a fresh one
/// (with the same flags: disabled, sent, ...).
#[inline]
pub fn swap_out() -> OutputGlobals {
    // SAFETY: the PHP thread; `output_globals` is PHP's own global and
    // php_output_activate only re-initialises it (it frees nothing).
    unsafe {
        let g = &raw mut output_globals;
        let saved = *g;
        if saved.handlers.elements.is_null() {
            // Never had a handler (the usual case, on every coroutine
            // switch): no active or running handler either, so the state is
            // already a fresh one with these flags; re-initialising it would
            // only clear where output started.
            return saved;
        }
        ffi::php_output_activate();
        (*g).flags = saved.flags;
        saved
    }
}

/// Puts `saved` (from `swap_out` or `take`) back as the running state. The
/// state it replaces must have been taken already, or be one without
/// handlers.
#[inline]
pub fn put(saved: OutputGlobals) {
    // SAFETY: as in `swap_out`; the struct is a bitwise copy PHP made.
    unsafe { output_globals = saved };
}

/// The running coroutine's output stack, if it ever had one (taken out:
/// the running state is left fresh); `None` when there is nothing to keep.
#[inline]
pub fn take() -> Option<Box<OutputGlobals>> {
    // SAFETY: as in `swap_out`.
    let has = unsafe { !output_globals.handlers.elements.is_null() };
    has.then(|| Box::new(swap_out()))
}

/// A coroutine ended: flush and close what it left open, free its stack.
#[inline]
pub fn end_all() {
    // SAFETY: as in `swap_out`; PHP ends the handlers of the running state.
    unsafe {
        let g = &raw mut output_globals;
        if (*g).handlers.elements.is_null() {
            return;
        }
        if !(*g).active.is_null() {
            ffi::php_output_end_all();
        }
        zend_stack_destroy(&raw mut (*g).handlers);
    }
}

/// The switcher's output state, put aside while a coroutine runs.
pub enum Outer {
    /// It had no handler stack (the usual case): nothing is put aside. As
    /// in Swoole, a coroutine starts on the switcher's handler-less state
    /// and leaves it so: where output started and the flags (output sent,
    /// disabled) are facts of the one stdout they share, not per
    /// coroutine.
    Plain,
    /// Its whole state, replaced by a fresh one.
    Full(OutputGlobals),
}

/// `swap_out` for a switch: with no handler stack there is nothing to
/// put aside (see `Outer::Plain`).
#[inline]
pub fn put_aside() -> Outer {
    // SAFETY: as in `swap_out`.
    if unsafe { output_globals.handlers.elements.is_null() } {
        return Outer::Plain;
    }
    Outer::Full(swap_out())
}

/// True when the running state has no handler stack: what `put_aside`
/// left in place is still there (a handler stack is only ever made by a
/// push).
#[inline]
pub fn untouched() -> bool {
    // SAFETY: as in `swap_out`.
    unsafe { output_globals.handlers.elements.is_null() }
}

/// Puts `outer` back as the running state, once the coroutine's own has
/// been taken or ended; `untouched`: the coroutine's state never had a
/// handler stack (see `untouched`), so there is nothing to put back.
#[inline]
pub fn put_back(outer: Outer, untouched: bool) {
    match outer {
        Outer::Full(g) => put(g),
        Outer::Plain => {
            if !untouched {
                // SAFETY: as in `swap_out`; the state replaced has no
                // handler stack left (taken or ended by the caller), nothing
                // is leaked. An ended stack keeps its `max` with no
                // elements: emptied here, so the next push allocates.
                unsafe {
                    let g = &raw mut output_globals;
                    (*g).handlers.top = 0;
                    (*g).handlers.max = 0;
                    (*g).handlers.elements = std::ptr::null_mut();
                    (*g).active = std::ptr::null_mut();
                    (*g).running = std::ptr::null_mut();
                }
            }
        }
    }
}
