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
    /// It had no handler stack (the usual case): the stack's bookkeeping,
    /// where output started and the flags are all there is to keep, the
    /// rest is empty.
    Plain {
        stack: [c_int; 3],
        start_filename: *mut ffi::zend_string,
        start_lineno: c_int,
        flags: c_int,
    },
    /// Its whole state, replaced by a fresh one.
    Full(OutputGlobals),
}

/// `swap_out` for a switch: with no handler stack, only the few words a
/// fresh state would not have are read (not the whole state copied).
#[inline]
pub fn put_aside() -> Outer {
    // SAFETY: as in `swap_out`.
    unsafe {
        let g = &raw const output_globals;
        if (*g).handlers.elements.is_null() {
            return Outer::Plain {
                stack: [(*g).handlers.size, (*g).handlers.top, (*g).handlers.max],
                start_filename: (*g).output_start_filename,
                start_lineno: (*g).output_start_lineno,
                flags: (*g).flags,
            };
        }
    }
    Outer::Full(swap_out())
}

/// True when the running state has no handler stack: what `put_aside`
/// left in place is still there but for where output started and the
/// flags (a handler stack is only ever made by a push).
#[inline]
pub fn untouched() -> bool {
    // SAFETY: as in `swap_out`.
    unsafe { output_globals.handlers.elements.is_null() }
}

/// Puts `outer` back as the running state, once the coroutine's own has
/// been taken or ended; `untouched`: the coroutine's state never had a
/// handler stack (see `untouched`), so only the few words differ.
#[inline]
pub fn put_back(outer: Outer, untouched: bool) {
    match outer {
        Outer::Full(g) => put(g),
        Outer::Plain {
            stack,
            start_filename,
            start_lineno,
            flags,
        } => {
            // SAFETY: as in `swap_out`; the state replaced has no handler
            // stack (taken or ended by the caller), nothing is leaked.
            unsafe {
                let g = &raw mut output_globals;
                if !untouched {
                    (*g).handlers.size = stack[0];
                    (*g).handlers.top = stack[1];
                    (*g).handlers.max = stack[2];
                    (*g).handlers.elements = std::ptr::null_mut();
                    (*g).active = std::ptr::null_mut();
                    (*g).running = std::ptr::null_mut();
                }
                (*g).output_start_filename = start_filename;
                (*g).output_start_lineno = start_lineno;
                (*g).flags = flags;
            }
        }
    }
}
