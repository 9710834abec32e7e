//! The preemptive scheduler (`Co::set(['enable_preemptive_scheduler' =>
//! true])`): a coroutine that keeps the CPU for more than a slice (10 ms,
//! Swoole's `MAX_EXEC_MSEC`) without waiting is moved to the back of the
//! queue, so a busy loop cannot starve the others.
//!
//! Mechanism: a ticker thread sets PHP's `EG(vm_interrupt)` every 1 ms while
//! preemption is on; the VM then calls `zend_interrupt_function` at its next
//! safe point (a loop's backward jump, a function entry), on the PHP thread.
//! Our interrupt function (chained before any other extension's) checks
//! whether the running coroutine's turn began a slice ago or more (the
//! scheduler stamps every switch, `coro::switched_at`), and if so suspends
//! it with a zero sleep: it continues on the loop's next round.
//! `Coroutine::disableScheduler()` exempts the calling coroutine.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;
use std::time::Duration;

use ext_php_rs::ffi::{self, zend_execute_data};

use super::Cid;

/// Per-thread state of this file, one thread-local for all (static TLS is
/// a budget: tools/tls-check.sh).
struct PreemptState {
    /// The interrupt function that was installed before ours.
    previous: Cell<Option<Interrupt>>,
    /// Coroutines that called `disableScheduler()`.
    exempt: RefCell<HashSet<Cid>>,
}

thread_local! {
    static PREEMPTSTATE: Box<PreemptState> = Box::new(PreemptState {
        previous: Cell::new(None),
        exempt: RefCell::new(HashSet::new()),
    });
}

fn with_previous<R>(f: impl FnOnce(&Cell<Option<Interrupt>>) -> R) -> R {
    PREEMPTSTATE.with(|s| f(&s.previous))
}

fn with_exempt<R>(f: impl FnOnce(&RefCell<HashSet<Cid>>) -> R) -> R {
    PREEMPTSTATE.with(|s| f(&s.exempt))
}

/// The longest a coroutine runs before it is preempted.
const SLICE: Duration = Duration::from_millis(10);
/// How often the ticker asks the VM to look.
const TICK: Duration = Duration::from_millis(1);

/// Preemption on (read by the ticker thread too).
static ON: AtomicBool = AtomicBool::new(false);
static START: Once = Once::new();

type Interrupt = unsafe extern "C" fn(*mut zend_execute_data);

/// Turns preemption on or off for this process.
pub fn set(on: bool) {
    ON.store(on, Ordering::SeqCst);
    if !on {
        return;
    }
    START.call_once(|| {
        // SAFETY: module/request code on the PHP thread; the hook pointer is
        // read by the VM only on this thread, between opcodes.
        unsafe {
            with_previous(|p| p.set(ffi::zend_interrupt_function));
            ffi::zend_interrupt_function = Some(interrupt);
        }
        let spawned = std::thread::Builder::new()
            .name("rswoole-preempt".into())
            .spawn(|| loop {
                std::thread::sleep(TICK);
                if ON.load(Ordering::Relaxed) {
                    // SAFETY: `vm_interrupt` is PHP's `zend_atomic_bool`
                    // (an `_Atomic bool`, the layout of `AtomicBool`); PHP's
                    // own timeout thread sets it the same way.
                    let flag = unsafe {
                        &*(&raw mut ffi::executor_globals.vm_interrupt).cast::<AtomicBool>()
                    };
                    flag.store(true, Ordering::SeqCst);
                }
            });
        if spawned.is_err() {
            ON.store(false, Ordering::SeqCst);
        }
    });
}

#[inline]
pub fn is_on() -> bool {
    ON.load(Ordering::SeqCst)
}

/// `Coroutine::disableScheduler()` (`yes`) / `enableScheduler()` for
/// coroutine `cid`: true when this changed its state.
pub fn exempt(cid: Cid, yes: bool) -> bool {
    with_exempt(|e| {
        let mut e = e.borrow_mut();
        if yes {
            ANY_EXEMPT.store(true, Ordering::Relaxed);
            e.insert(cid)
        } else {
            e.remove(&cid)
        }
    })
}

/// Some coroutine was ever exempted (`disableScheduler()`): until then
/// `forget` has nothing to look up (it runs once per coroutine).
static ANY_EXEMPT: AtomicBool = AtomicBool::new(false);

/// Forgets an ended coroutine.
#[inline]
pub fn forget(cid: Cid) {
    if !ANY_EXEMPT.load(Ordering::Relaxed) {
        return;
    }
    with_exempt(|e| {
        let mut e = e.borrow_mut();
        // Almost always empty: no hashing then (once per coroutine).
        if !e.is_empty() {
            e.remove(&cid);
        }
    });
}

/// The VM interrupt entry: the body under `catch_unwind`, as `php_fn!` does
/// for the PHP layer's entries (this layer may not use that macro). It may
/// not bail out: it calls no PHP code but the previous interrupt function.
unsafe extern "C" fn interrupt(ex: *mut zend_execute_data) {
    // SAFETY: the VM's frame, passed on as the VM passed it.
    let run = std::panic::AssertUnwindSafe(|| unsafe { interrupt_body(ex) });
    if std::panic::catch_unwind(run).is_err() {
        crate::rlog!(
            Error,
            "rswoole internal error in the preemptive scheduler's interrupt"
        );
    }
}

/// # Safety
/// `ex` is the frame the VM passed to the interrupt.
unsafe fn interrupt_body(ex: *mut zend_execute_data) {
    if let Some(prev) = with_previous(Cell::get) {
        // SAFETY: the hook another extension installed, called as the VM
        // would have called it.
        unsafe { prev(ex) };
    }
    if !ON.load(Ordering::Relaxed) || ffi_exception() {
        return;
    }
    let cid = super::current();
    if cid < 0 || super::fiber::switch_blocked() || with_exempt(|e| e.borrow().contains(&cid)) {
        return;
    }
    let Some(since) = super::switched_at() else {
        return;
    };
    if since.elapsed() < SLICE {
        return;
    }
    // Back of the queue: continue on the loop's next round.
    let _ = super::sleep(Duration::ZERO);
}

fn ffi_exception() -> bool {
    ext_php_rs::zend::ExecutorGlobals::has_exception()
}
