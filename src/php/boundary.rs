//! The boundary between the engine and the PHP interpreter: every call from
//! Rust into PHP user code goes through [`call`] (or [`call_in_context`], a
//! request coroutine's handler, whose bailout its context's `zend_try`
//! catches for it).
//!
//! After each call it decides, in this one place, what happens to what the
//! call left behind (see docs/internals.md, "Failures"):
//! - a pending exception is taken out of the engine, logged like PHP's own
//!   "PHP Fatal error:  Uncaught ..." with its trace, and reported as
//!   [`CallError::Exception`]; the caller answers 500 and keeps serving;
//! - `exit()` (an unwind-exit, not a real exception) becomes [`CallError::Exit`];
//! - a bailout (fatal error, memory limit) becomes [`CallError::Fatal`]: the
//!   interpreter is not safe to use again in this process;
//! - a Rust panic below becomes [`CallError::Fatal`] too, never an abort.

use std::panic::AssertUnwindSafe;
use std::ptr;

use ext_php_rs::ffi::{self, zend_object};
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::{try_catch, CatchError, ExecutorGlobals};

use crate::engine::log;

extern "C" {
    // ZEND_API bool zend_is_unwind_exit(const zend_object *ex);
    fn zend_is_unwind_exit(ex: *const zend_object) -> bool;
    // ZEND_API bool zend_is_graceful_exit(const zend_object *ex);
    fn zend_is_graceful_exit(ex: *const zend_object) -> bool;
    // ZEND_API ZEND_COLD zend_result zend_exception_error(zend_object *ex, int severity);
    fn zend_exception_error(ex: *mut zend_object, severity: i32) -> i32;
    // ZEND_API zend_result zend_set_memory_limit(size_t memory_limit);
    fn zend_set_memory_limit(memory_limit: usize) -> i32;
}

/// PHP's last error when it is a fatal one (`E_ERROR`, `E_CORE_ERROR`,
/// `E_COMPILE_ERROR`, `E_USER_ERROR`): its message, as an identity.
#[inline]
pub(crate) fn last_fatal() -> Option<usize> {
    // SAFETY: the PHP thread; core_globals is PHP's (NTS) global.
    let (ty, msg) = unsafe {
        let pg = &raw const ffi::core_globals;
        ((*pg).last_error_type, (*pg).last_error_message)
    };
    (ty & (1 | 16 | 64 | 256) != 0 && !msg.is_null()).then_some(msg as usize)
}

/// After a fatal error the process only winds down (the worker drains and
/// is replaced), but that still runs PHP: the coroutines of the worker's
/// other requests finish, fibers are switched, responses are built. After
/// `memory_limit` was exhausted every one of those allocations would fail
/// again (the memory is still held by the failed call's frames) and the
/// second fatal, outside any `zend_try`, would kill the process with the
/// other requests unanswered. So the limit is lifted for the rest of this
/// process's life.
fn lift_memory_limit() {
    // SAFETY: the PHP thread; any size at or above what is in use is valid.
    unsafe {
        zend_set_memory_limit(usize::MAX >> 1);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallError {
    /// An uncaught exception; it was logged and cleared.
    Exception,
    /// `exit($code)` was called.
    Exit(i32),
    /// A fatal error or a panic: this process must not run PHP again.
    Fatal(i32),
    /// PHP is destroying the fiber this call ran in (its "graceful exit" is
    /// left pending so it keeps unwinding): return without calling PHP.
    Unwind,
}

/// The executor's frame and VM stack position before a call.
#[derive(Clone, Copy)]
struct Saved(
    *mut ffi::zend_execute_data,
    *mut ffi::zval,
    *mut ffi::zval,
    ffi::zend_vm_stack,
);

impl Saved {
    fn take() -> Self {
        // Read directly: `ExecutorGlobals::get()` takes ext-php-rs's globals
        // lock (atomic read-modify-writes), and this runs on every call.
        // SAFETY: NTS PHP's executor globals, read on the PHP thread.
        unsafe {
            let eg = &raw const ffi::executor_globals;
            Saved(
                (*eg).current_execute_data,
                (*eg).vm_stack_top,
                (*eg).vm_stack_end,
                (*eg).vm_stack,
            )
        }
    }
}

/// `EG(exception)`, read without ext-php-rs's globals lock (see `Saved::take`).
fn pending_exception() -> *mut zend_object {
    // SAFETY: NTS PHP's executor globals, read on the PHP thread.
    unsafe { ffi::executor_globals.exception }
}

/// Puts the executor back where [`Saved::take`] found it, after a bailout.
fn restore(saved: Saved) {
    let mut eg = ExecutorGlobals::get_mut();
    eg.current_execute_data = saved.0;
    eg.vm_stack_top = saved.1;
    eg.vm_stack_end = saved.2;
    eg.vm_stack = saved.3;
}

/// Calls `callable` with `args` and returns its result.
pub fn call(callable: &Zval, args: &mut [Zval]) -> Result<Zval, CallError> {
    crate::engine::rt::event_loop::note_activity();
    let mut retval = Zval::new();
    let argc = args.len() as u32;
    let argv = args.as_mut_ptr();
    // A bailout leaves the executor pointing into the frames of the call it
    // unwound (PHP would end the request there); we keep running PHP, so
    // the caller's frame and VM stack position are put back.
    let saved = Saved::take();
    let last_error = last_fatal();
    let mut frame = CallFrame {
        callable: ptr::from_ref(callable).cast_mut(),
        retval: &raw mut retval,
        argc,
        argv,
    };
    let mut done: *mut std::ffi::c_void = ptr::null_mut();
    // PHP's `zend_try` around the call, without ext-php-rs's `try_catch`
    // wrapping (a `catch_unwind` frame and its bailout-guard bookkeeping, a
    // thread-local access: ~40% of the try's cost, on every call): nothing
    // in `call_frame` can panic, and a panic below it cannot cross PHP's C
    // frames anyway.
    // SAFETY: the PHP thread inside a running request; `frame` and `done`
    // live across the call, and `call_frame` only reads `frame`.
    let bailed = unsafe {
        ffi::ext_php_rs_zend_try_catch(
            call_frame,
            (&raw mut frame).cast::<std::ffi::c_void>().cast_const(),
            &raw mut done,
        )
    };
    let outcome = if bailed {
        Err(CatchError::Bailout)
    } else {
        Ok(())
    };
    settle(outcome, move || saved, last_error)?;
    Ok(retval)
}

/// [`call`] for a coroutine body whose context's own `zend_try` catches
/// its bailout (no `setjmp` here: the context's, set once for its life,
/// is the innermost). The caller has armed its context's rescue
/// (`coro::context::rescue_slot`), which ends the body with
/// [`rescued_fatal`]'s outcome when it bails out; what else the call
/// leaves is decided here as in [`call`].
#[inline(always)]
pub fn call_in_context(callable: &Zval, args: &mut [Zval]) -> Result<Zval, CallError> {
    crate::engine::rt::event_loop::note_activity();
    let mut retval = Zval::new();
    let last_error = last_fatal();
    let frame = CallFrame {
        callable: ptr::from_ref(callable).cast_mut(),
        retval: &raw mut retval,
        argc: args.len() as u32,
        argv: args.as_mut_ptr(),
    };
    // SAFETY: the PHP thread inside a running request; `frame` lives across
    // the call (`call_frame`'s contract); a bailout unwinds to the
    // context's zend_try (see above).
    unsafe { call_frame((&raw const frame).cast()) };
    // The usual case inline (as `settle` begins): no new fatal error, no
    // exception pending.
    if last_fatal() == last_error && pending_exception().is_null() {
        return Ok(retval);
    }
    // It returned: the executor's state is the one before the call again.
    settle(Ok(()), Saved::take, last_error)?;
    Ok(retval)
}

/// The outcome of a body [`call_in_context`] ran that bailed out, once its
/// context's `zend_try` caught it (the executor's state is the context's
/// fresh one again): as [`call`]'s after a bailout.
pub fn rescued_fatal() -> CallError {
    lift_memory_limit();
    CallError::Fatal(255)
}

/// What `call_frame` calls.
struct CallFrame {
    callable: *mut ffi::zval,
    retval: *mut ffi::zval,
    argc: u32,
    argv: *mut Zval,
}

/// The call inside `call`'s `zend_try`.
///
/// # Safety
/// `ctx` points to a live `CallFrame` whose pointers are valid for the call
/// (the PHP thread, a running request).
unsafe extern "C" fn call_frame(ctx: *const std::ffi::c_void) -> *const std::ffi::c_void {
    // SAFETY: see the function's contract; `_call_user_function_impl`
    // only reads `argc` arguments.
    unsafe {
        let f = &*ctx.cast::<CallFrame>();
        ffi::_call_user_function_impl(
            ptr::null_mut(),
            f.callable,
            f.retval,
            f.argc,
            f.argv,
            ptr::null_mut(),
        );
    }
    ctx
}

/// Drops `values` (call arguments, a callback's result, a coroutine's
/// job) under the boundary's rules: the last reference to an object runs
/// its `__destruct`, user code, which may throw (the exception must not
/// stay pending for the next callback) or hit a fatal error.
///
/// Dropping is on every request's path, so it is not wrapped in a
/// `zend_try` (a `setjmp`): a fatal error in a destructor unwinds to the
/// enclosing one (the fiber's, re-raised into the `call` that resumed it,
/// or the call's own), as a fatal anywhere else in the callback would.
pub fn release<T>(values: T) -> Result<(), CallError> {
    release_with(|| drop(values))
}

/// [`release`] of values dropped in place by `free` (a coroutine's job:
/// not moved once more on its way to the drop).
#[inline(always)]
pub fn release_with(free: impl FnOnce()) -> Result<(), CallError> {
    let last_error = last_fatal();
    free();
    // SAFETY: the PHP thread; executor_globals is PHP's (NTS) global.
    let pending = unsafe {
        let eg = &raw const ffi::executor_globals;
        !(*eg).exception.is_null()
    };
    if !pending && last_fatal() == last_error {
        return Ok(());
    }
    settle(Ok(()), Saved::take, last_error)
}

/// The more serious of two outcomes (a fatal error or `exit()` wins).
pub fn worst(a: Result<(), CallError>, b: Result<(), CallError>) -> Result<(), CallError> {
    match (a, b) {
        (Err(CallError::Fatal(c)), _) | (_, Err(CallError::Fatal(c))) => Err(CallError::Fatal(c)),
        (Err(CallError::Exit(c)), _) | (_, Err(CallError::Exit(c))) => Err(CallError::Exit(c)),
        (Err(e), _) | (Ok(()), Err(e)) => Err(e),
        (Ok(()), Ok(())) => Ok(()),
    }
}

/// What a call into PHP left behind, decided in one place (module docs).
/// `saved`: the executor's state before the call (`Saved::take` itself
/// after a call that returned, whose state is the one before it again:
/// read only when needed).
fn settle(
    outcome: Result<(), CatchError>,
    saved: impl FnOnce() -> Saved,
    last_error: Option<usize>,
) -> Result<(), CallError> {
    match outcome {
        Err(CatchError::Bailout) => {
            restore(saved());
            lift_memory_limit();
            return Err(CallError::Fatal(255));
        }
        Err(e) => {
            log::write_raw(&format!("PHP Fatal error:  rswoole internal error: {e}\n"));
            return Err(CallError::Fatal(255));
        }
        Ok(_) => {}
    }
    // A fatal error inside a coroutine can come back as a normal return
    // (the fiber caught the bailout); PHP recorded it as its last error.
    if last_fatal() != last_error && last_fatal().is_some() {
        lift_memory_limit();
        return Err(CallError::Fatal(255));
    }
    let pending = pending_exception();
    if pending.is_null() {
        return Ok(());
    }
    // SAFETY: a non-null EG(exception) is a live object.
    if unsafe { zend_is_graceful_exit(pending) } {
        return Err(CallError::Unwind);
    }
    // Read before the report below runs user code (`__toString()`), which
    // may bail out and leave the executor in its frames.
    let saved = saved();
    if let Some(ex) = ExecutorGlobals::take_exception() {
        // SAFETY: `ex` is a live exception object we now own.
        if unsafe { zend_is_unwind_exit(ptr::from_ref::<ZendObject>(&ex).cast()) } {
            let code = ExecutorGlobals::get().exit_status;
            return Err(CallError::Exit(code));
        }
        if crate::engine::worker::current_worker_id() < 0 {
            // A plain script (or the master): PHP's own report, displayed
            // and logged as for any uncaught exception.
            php_uncaught(ex);
        } else {
            // An `exit()` nobody caught ends the worker, as in Swoole (it
            // is a fatal error there); other exceptions keep it serving.
            let exiting = super::exit::is_exit_exception(&ex);
            // The report runs `__toString()`, user code too: a fatal error
            // there is this call's fatal error.
            if !report_uncaught(&ex) {
                restore(saved);
                lift_memory_limit();
                return Err(CallError::Fatal(255));
            }
            if exiting {
                return Err(CallError::Fatal(255));
            }
        }
        return Err(CallError::Exception);
    }
    Ok(())
}

/// [`call`], then [`release`] of the arguments (their last references may
/// run a `__destruct`). An exception from a destructor is logged and the
/// call's own outcome kept; a fatal error there is the call's.
pub fn call_owned<A: AsMut<[Zval]>>(callable: &Zval, mut args: A) -> Result<Zval, CallError> {
    let r = call(callable, args.as_mut());
    if matches!(
        r,
        Err(CallError::Unwind | CallError::Fatal(_) | CallError::Exit(_))
    ) {
        // The fiber is being destroyed, or PHP cannot go on: nothing more
        // is decided here.
        drop(args);
        return r;
    }
    match release(args) {
        Err(e @ (CallError::Fatal(_) | CallError::Exit(_))) => Err(e),
        _ => r,
    }
}

/// Calls a callback whose result does not matter, for lifecycle events.
pub fn call_void(callable: &Zval, args: &mut [Zval]) -> Result<(), CallError> {
    call(callable, args).map(|_| ())
}

/// Hands the exception to PHP's own uncaught-exception report.
fn php_uncaught(ex: ext_php_rs::boxed::ZBox<ZendObject>) {
    let raw = ex.into_raw();
    let _ = try_catch(AssertUnwindSafe(|| {
        // SAFETY: `raw` is a live exception we own one reference to;
        // zend_exception_error reports it and releases that reference.
        unsafe { zend_exception_error(raw.cast(), E_ERROR | E_DONT_BAIL) };
    }));
}

const E_ERROR: i32 = 1;
const E_DONT_BAIL: i32 = 1 << 15;

/// Logs an exception the way PHP reports an uncaught one. False when the
/// report itself hit a fatal error (in a user `__toString()`): nothing was
/// logged then, PHP's own fatal error message was.
pub fn report_uncaught(ex: &ZendObject) -> bool {
    try_catch(AssertUnwindSafe(|| write_uncaught(ex))).is_ok()
}

fn write_uncaught(ex: &ZendObject) {
    let text = ex
        .try_call_method("__toString", vec![])
        .ok()
        .and_then(|z| z.string())
        .unwrap_or_else(|| {
            ex.get_class_name()
                .unwrap_or_else(|_| "exception".to_string())
        });
    let file = ex
        .try_call_method("getFile", vec![])
        .ok()
        .and_then(|z| z.string())
        .unwrap_or_default();
    let line = ex
        .try_call_method("getLine", vec![])
        .ok()
        .and_then(|z| z.long())
        .unwrap_or(0);
    // A failure inside __toString itself must not leave a new exception behind.
    drop(ExecutorGlobals::take_exception());
    log::write_raw(&format!(
        "PHP Fatal error:  Uncaught {text}\n  thrown in {file} on line {line}\n"
    ));
}

/// Ends the process after a fatal error where no serve loop can drain it:
/// PHP's output buffers are flushed, nothing else of PHP runs.
pub fn end_process(code: i32) -> ! {
    // SAFETY: flushing PHP's output buffers on the PHP thread.
    unsafe { ffi::php_output_end_all() };
    // SAFETY: ends the process; nothing is expected to run after this.
    unsafe { libc::_exit(code) }
}
