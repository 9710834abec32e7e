//! `Swoole\Coroutine` (alias `Co`), `Swoole\Coroutine\System`, and the
//! functions `go()`, `defer()`, `Swoole\Coroutine\run()` / `Co\run()`.
//!
//! This file keeps what the coro layer must not hold: each coroutine's
//! callable and arguments, its context object and its defer stack, in tables
//! keyed by cid. It also decides what an uncaught exception in a coroutine
//! does: in a server worker it is logged and the worker goes on; in a plain
//! script it ends the script like PHP's own uncaught exception.

use std::cell::RefCell;
use std::time::Duration;

use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpResult;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::ClassEntry;

use super::boundary::{self, CallError};
/// `SWOOLE_ERROR_CO_CANNOT_CANCEL`.
const SWOOLE_ERROR_CO_CANNOT_CANCEL: i64 = 10015;
/// `SWOOLE_ERROR_CO_CANCELED`.
pub const SWOOLE_ERROR_CO_CANCELED: i64 = 10017;

use super::errors::{
    need_coroutine, out_of_coroutine, set_last_error, SWOOLE_ERROR_CO_NOT_EXISTS,
    SWOOLE_ERROR_CO_TIMEDOUT, SWOOLE_ERROR_INVALID_PARAMS, SWOOLE_ERROR_WRONG_OPERATION,
};
use super::exception::{error_ce, type_error};
use crate::coro::{self, Cid, CidMap, WaitKind, Wake};
use crate::engine::{rt::event_loop, worker};

/// Per-thread state of this file, one thread-local for all (static TLS is
/// a budget: tools/tls-check.sh).
struct CoState {
    /// `Coroutine::set(['exit_condition' => fn])`.
    exit_condition: std::cell::RefCell<Option<Zval>>,
    /// Coroutines some `Coroutine::join()` waits for (one joiner each).
    joined: std::cell::RefCell<std::collections::HashSet<i64>>,
}

thread_local! {
    static COSTATE: Box<CoState> = Box::new(CoState {
        exit_condition: std::cell::RefCell::new(None),
        joined: std::cell::RefCell::new(std::collections::HashSet::new()),
    });
}

fn with_exit_condition<R>(f: impl FnOnce(&std::cell::RefCell<Option<Zval>>) -> R) -> R {
    COSTATE.with(|s| f(&s.exit_condition))
}

fn with_joined<R>(f: impl FnOnce(&std::cell::RefCell<std::collections::HashSet<i64>>) -> R) -> R {
    COSTATE.with(|s| f(&s.joined))
}

/// The exceptions `coro::throw_into` owes a coroutine (its kinds).
const OWED_CANCELED: u8 = 1;
const OWED_TIMEOUT: u8 = 2;

/// `Swoole\Coroutine\Context` (`getContext()`), set at startup.
static CONTEXT_CE: std::sync::OnceLock<super::CeRef> = std::sync::OnceLock::new();
/// `Swoole\Coroutine\TimeoutException` (`setTimeLimit()`), set at startup.
static TIMEOUT_CE: std::sync::OnceLock<super::CeRef> = std::sync::OnceLock::new();

pub fn set_context_ce(ce: &'static ClassEntry) {
    let _ = CONTEXT_CE.set(super::CeRef(ce));
}

pub fn register_classes() -> ext_php_rs::error::Result<()> {
    let t = super::internal_subclass(
        "Swoole\\Coroutine\\TimeoutException",
        (ext_php_rs::zend::ce::exception, "Exception"),
    )?;
    super::make_final(t);
    let _ = TIMEOUT_CE.set(super::CeRef(t));
    Ok(())
}

/// `coro`'s throw hook: throws the exception the running coroutine is owed,
/// as its wait returns (Swoole restores it into `EG(exception)` there).
fn throw_owed(kind: u8) {
    let ce = match kind {
        OWED_TIMEOUT => TIMEOUT_CE.get(),
        _ => super::socket_coro::CANCELED.get(),
    };
    let ce = ce.map_or_else(error_ce, |c| c.0);
    PhpException::new(String::new(), 0, ce).throw();
}

/// Called with a coroutine body's outcome.
pub type OnDone = Box<dyn FnOnce(Result<(), CallError>)>;

/// What a coroutine runs and what to do when it ends.
pub struct Job {
    pub callable: Zval,
    pub args: Vec<Zval>,
    /// Called with the body's outcome (e.g. a request answers 500).
    pub done: Option<OnDone>,
}

/// A coroutine's arguments: a vector, or (a request's) two values kept
/// inline, with no allocation.
enum Args {
    Vec(Vec<Zval>),
    Two([Zval; 2]),
}

impl Args {
    fn as_mut_slice(&mut self) -> &mut [Zval] {
        match self {
            Args::Vec(v) => v,
            Args::Two(a) => a,
        }
    }
}

/// A coroutine's completion callback (`Job::done`), stored inline when it
/// fits in two words (a boxed `OnDone` does): no allocation for the small
/// closures of the request path.
struct Done {
    data: std::mem::MaybeUninit<[usize; 2]>,
    call: unsafe fn(*mut [usize; 2], Result<(), CallError>),
    drop: unsafe fn(*mut [usize; 2]),
}

impl Done {
    fn new<F: FnOnce(Result<(), CallError>) + 'static>(f: F) -> Done {
        if std::mem::size_of::<F>() > std::mem::size_of::<[usize; 2]>()
            || std::mem::align_of::<F>() > std::mem::align_of::<usize>()
        {
            // A boxed closure is two words: it fits.
            let boxed: OnDone = Box::new(f);
            return Done::new(boxed);
        }
        let mut data = std::mem::MaybeUninit::<[usize; 2]>::uninit();
        // SAFETY: `F` fits `data` (size and alignment checked above); it is
        // read back exactly once, by `run_in_place` or by `drop`.
        unsafe { data.as_mut_ptr().cast::<F>().write(f) };
        Done {
            data,
            call: done_call::<F>,
            drop: done_drop::<F>,
        }
    }

    /// Runs the callback, in place (`self` is not moved out of the job
    /// that holds it).
    ///
    /// # Safety
    /// `self` is neither used nor dropped afterwards.
    #[inline(always)]
    unsafe fn run_in_place(&mut self, result: Result<(), CallError>) {
        // SAFETY: `data` holds the `F` `new` stored for this `call`, read
        // once (see the function's contract).
        unsafe { (self.call)(self.data.as_mut_ptr(), result) }
    }
}

impl Drop for Done {
    fn drop(&mut self) {
        // SAFETY: `data` holds the `F` `new` stored for this `drop`, not
        // taken by `run_in_place` (after which `self` is never dropped).
        unsafe { (self.drop)(self.data.as_mut_ptr()) }
    }
}

/// # Safety
/// `p` holds an `F` written by `Done::new`, read here once.
unsafe fn done_call<F: FnOnce(Result<(), CallError>)>(
    p: *mut [usize; 2],
    result: Result<(), CallError>,
) {
    // SAFETY: see the function's contract.
    let f = unsafe { p.cast::<F>().read() };
    f(result);
}

/// # Safety
/// `p` holds an `F` written by `Done::new`, dropped here once.
unsafe fn done_drop<F>(p: *mut [usize; 2]) {
    // SAFETY: see the function's contract.
    unsafe { p.cast::<F>().drop_in_place() };
}

/// What dropping `z` does (ext-php-rs: `change_type(Null)`), inline for
/// what a job holds (objects, arrays; a string keeps ext-php-rs's drop,
/// which knows persistent strings). `z` is null after.
#[inline]
fn release_zval(z: &mut Zval) {
    /// `IS_TYPE_REFCOUNTED << Z_TYPE_FLAGS_SHIFT`.
    const REFCOUNTED: u32 = 1 << 8;
    // SAFETY: every zval's `u1` holds its type info.
    let ty = unsafe { z.u1.type_info };
    if ty & 0xff == ext_php_rs::ffi::IS_STRING {
        z.set_null();
        return;
    }
    if ty & REFCOUNTED != 0 {
        // SAFETY: a refcounted array, object, resource or reference: it
        // gives up the one reference this zval holds, and the zval is made
        // null at once.
        unsafe { ext_php_rs::ffi::zval_ptr_dtor(z) };
    }
    z.u1.type_info = ext_php_rs::ffi::IS_NULL;
}

/// A coroutine's body as kept until it starts (see `Job`).
struct Pending {
    callable: Zval,
    args: Args,
    done: Option<Done>,
}

impl Pending {
    /// Releases the arguments, then the callable, in place, with `Zval`'s
    /// own drop inlined: a refcounted value goes to `zval_ptr_dtor`, any
    /// other needs nothing. What is left (null zvals, an empty vector) owns
    /// nothing.
    #[inline(always)]
    fn release_values(&mut self) {
        match &mut self.args {
            Args::Two([a, b]) => {
                release_zval(a);
                release_zval(b);
            }
            Args::Vec(v) => std::mem::take(v)
                .into_iter()
                .for_each(|mut z| release_zval(&mut z)),
        }
        release_zval(&mut self.callable);
    }
}

impl From<Job> for Pending {
    fn from(job: Job) -> Self {
        Pending {
            callable: job.callable,
            args: Args::Vec(job.args),
            done: job.done.map(Done::new),
        }
    }
}

/// The PHP values kept per coroutine. One thread-local for the three
/// tables: in a dlopen'ed extension every thread-local access is a
/// `__tls_get_addr` call, and a request touches all three.
#[derive(Default)]
struct Tables {
    /// Jobs of coroutines whose start was put off (`go()` in a destructor).
    jobs: CidMap<Pending>,
    contexts: CidMap<Zval>,
    defers: CidMap<Vec<Zval>>,
}

thread_local! {
    /// Boxed: little static TLS room in a dlopen()ed extension.
    static TABLES: Box<RefCell<Tables>> = Box::new(RefCell::new(Tables::default()));


}

/// `Swoole\Event::rshutdown` is registered as a shutdown function once.
/// (Process-wide flags: NTS PHP runs on one thread; no TLS lookup on the
/// `go()` path.)
static LOOP_SCHEDULED: Flag = Flag::new();
/// Work was handed to the loop (a timer, `go()`, an event) since it last
/// ran: Swoole's "the reactor exists", which the end of the script waits
/// for with a deprecation.
static LOOP_PENDING: Flag = Flag::new();
/// A `Co\run()` / `Event::wait()` is running the loop.
static LOOP_RUNNING: Flag = Flag::new();
/// A defer or a context object was ever stored: until then a coroutine's
/// end skips the tables.
static TABLES_USED: Flag = Flag::new();

/// A process-wide bool with the `Cell` calls the loop flags use.
struct Flag(std::sync::atomic::AtomicBool);

impl Flag {
    const fn new() -> Self {
        Flag(std::sync::atomic::AtomicBool::new(false))
    }

    fn get(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn set(&self, v: bool) {
        self.0.store(v, std::sync::atomic::Ordering::Relaxed);
    }

    fn replace(&self, v: bool) -> bool {
        self.0.swap(v, std::sync::atomic::Ordering::Relaxed)
    }
}

/// The PHP thread's tables (see `coro::Pinned`).
static TABLES_PINNED: coro::Pinned<RefCell<Tables>> = coro::Pinned::new();

/// Runs `f` with this thread's tables (`f` inlined: see `coro::with_s`).
#[inline(always)]
fn with_tables<R>(f: impl FnOnce(&RefCell<Tables>) -> R) -> R {
    let t: *const RefCell<Tables> = match TABLES_PINNED.get() {
        Some(t) => t,
        None => TABLES.with(|t| std::ptr::from_ref::<RefCell<Tables>>(t)),
    };
    // SAFETY: the boxed tables of this thread, which live as long as the
    // thread (see `TABLES`); used only within this call, on this thread.
    f(unsafe { &*t })
}

/// Runs coroutine `cid`'s body; installed as the coro layer's entry hook.
fn entry(cid: Cid, payload: usize) {
    // Moved once, onto this coroutine's stack (the caller's slot is gone
    // after the first wait), and never dropped as a whole: its values are
    // released and its `done` run in place below.
    let mut place = std::mem::MaybeUninit::<Pending>::uninit();
    if payload != 0 {
        let slot = payload as *mut Option<Pending>;
        // SAFETY: `spawn_pending` passed its live `Option<Pending>` slot,
        // on its stack for the whole start (the `coro::run` call); the job
        // is copied out once and the slot left `None` (nothing to drop).
        unsafe {
            let Some(job) = &*slot else {
                return;
            };
            std::ptr::copy_nonoverlapping(job, place.as_mut_ptr(), 1);
            std::ptr::write(slot, None);
        }
    } else {
        // A start put off: the job waits in the map.
        match with_tables(|t| t.borrow_mut().jobs.remove(&cid)) {
            Some(job) => {
                place.write(job);
            }
            None => return,
        }
    }
    // SAFETY: written just above.
    let job = unsafe { place.assume_init_mut() };
    // The return value is released inline (see `release_zval`).
    let result = boundary::call(&job.callable, job.args.as_mut_slice()).map(|z| {
        release_zval(&mut std::mem::ManuallyDrop::new(z));
    });
    if result == Err(CallError::Unwind) {
        // PHP is tearing the fiber down: no defers, no more PHP here.
        coro::set_unwinding();
        // SAFETY: the job is dropped once, here, as a whole.
        unsafe { place.assume_init_drop() };
        return;
    }
    // The arguments' last references may run a `__destruct` (user code);
    // after a fatal error or `exit()` nothing more is decided here.
    let result = match result {
        Ok(()) => boundary::release_with(|| job.release_values()),
        Err(e @ CallError::Exception) => match boundary::release_with(|| job.release_values()) {
            Err(f @ (CallError::Fatal(_) | CallError::Exit(_))) => Err(f),
            _ => Err(e),
        },
        Err(e) => {
            job.release_values();
            Err(e)
        }
    };
    after_body(cid);
    // What is left of the job owns nothing (null zvals, an empty vector)
    // but its `done`, run (and so consumed) in place.
    match &mut job.done {
        // SAFETY: `place` is never dropped: `done` runs once, here.
        Some(done) => unsafe { done.run_in_place(result) },
        None => after_failure(result),
    }
}

/// A body ended: its defers run, its context object goes. No defers and no
/// context objects anywhere (the usual case): one look at the tables.
#[inline(always)]
fn after_body(cid: Cid) {
    let busy = TABLES_USED.get()
        && with_tables(|t| {
            let t = t.borrow();
            !t.defers.is_empty() || !t.contexts.is_empty()
        });
    if busy {
        after_body_slow(cid);
    }
}

#[cold]
fn after_body_slow(cid: Cid) {
    run_defers(cid);
    // The context object goes with its coroutine.
    let ctx = with_tables(|t| {
        let mut t = t.borrow_mut();
        if t.contexts.is_empty() {
            None
        } else {
            t.contexts.remove(&cid)
        }
    });
    drop(ctx);
}

fn run_defers(cid: Cid) {
    loop {
        // One borrow per round; the emptied list is removed in the same one.
        let next = with_tables(|t| {
            let mut t = t.borrow_mut();
            if t.defers.is_empty() {
                // The usual case: no hashing.
                return None;
            }
            let next = t.defers.get_mut(&cid).and_then(Vec::pop);
            if next.is_none() {
                t.defers.remove(&cid);
            }
            next
        });
        let Some(cb) = next else {
            break;
        };
        // As Swoole: one argument, null (its traces show `{closure}(NULL)`).
        let r = boundary::call(&cb, &mut [Zval::null()]).map(|_| ());
        if r == Err(CallError::Unwind) {
            coro::set_unwinding();
            return;
        }
        after_failure(r);
    }
}

/// What a failed coroutine body means for the process.
/// What a failed callback means for the process (uncaught exception,
/// `exit()`, fatal error), wherever it ran.
pub fn after_failure(result: Result<(), CallError>) {
    match result {
        Ok(()) => {}
        // In a worker the exception was logged; the worker keeps serving.
        Err(CallError::Exception) if worker::current_worker_id() >= 0 => {}
        // In a script: PHP's own uncaught exception report (boundary used
        // zend_exception_error), and the script ends.
        Err(CallError::Exception) => end_script(255),
        // In a serving worker it drains (other requests are answered) and
        // exits with the code, without exit callbacks (engine::worker::halt).
        Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) => {
            if !crate::engine::worker::halt::poison(code) {
                exit_process(code)
            }
        }
        Err(CallError::Unwind) => coro::set_unwinding(),
    }
}

extern "C" {
    // PHPAPI void php_call_shutdown_functions(void);
    fn php_call_shutdown_functions();
}

/// Runs (and frees) the registered shutdown functions, as PHP's request
/// shutdown does; for a process that leaves with `_exit`.
pub fn call_shutdown_functions() {
    // SAFETY: the PHP thread, in a live request; PHP catches the functions'
    // own bailouts.
    unsafe { php_call_shutdown_functions() };
}

/// A script whose coroutine failed with an uncaught exception ends as PHP
/// ends one after a fatal error: shutdown functions run, then the output
/// is flushed and the process exits.
fn end_script(code: i32) -> ! {
    // The failed coroutine is still on the stack: no loop may run again
    // (it would count that coroutine as deadlocked).
    LOOP_RUNNING.set(true);
    // SAFETY: the PHP thread, in a live request; PHP runs (and then frees)
    // the registered shutdown functions, catching their own bailouts.
    unsafe { php_call_shutdown_functions() };
    exit_process(code)
}

fn exit_process(code: i32) -> ! {
    // SAFETY: flush PHP's output buffers on the PHP thread, then leave.
    unsafe { ext_php_rs::ffi::php_output_end_all() };
    // SAFETY: ends the process; nothing is expected to run after this.
    unsafe { libc::_exit(code) }
}

/// Installs the entry hook; called at module startup.
pub fn init() {
    coro::init(entry);
    coro::set_throw_hook(throw_owed);
    // See `coro::init`: a forked child's thread starts with no loop.
    LOOP_RUNNING.set(false);
    LOOP_SCHEDULED.set(false);
    LOOP_PENDING.set(false);
    TABLES.with(|t| {
        // SAFETY: the boxed tables live as long as this (the PHP) thread;
        // the reference is only handed out on it.
        let r: &'static RefCell<Tables> = unsafe { &*std::ptr::from_ref::<RefCell<Tables>>(&**t) };
        TABLES_PINNED.claim(r);
    });
}

/// Makes sure the loop runs at the end of a plain script (as Swoole does).
#[inline]
pub fn schedule_loop() {
    if worker::current_worker_id() >= 0 || LOOP_RUNNING.get() || LOOP_PENDING.get() {
        return;
    }
    schedule_loop_slow();
}

/// Held by `Server::start()` and `Pool::start()`: when they return, their
/// loop has ended and taken what was handed to it (Swoole frees its reactor
/// there), so the end of the script has nothing pending to warn about.
pub struct LoopTakenOnReturn;

impl Drop for LoopTakenOnReturn {
    fn drop(&mut self) {
        LOOP_PENDING.set(false);
    }
}

/// Whether the loop has work nobody waited for (`Event::wait()`,
/// `Co\run()`) since it was handed.
pub fn loop_pending() -> bool {
    LOOP_PENDING.get()
}

fn schedule_loop_slow() {
    if worker::current_worker_id() >= 0 || LOOP_RUNNING.get() {
        return;
    }
    LOOP_PENDING.set(true);
    // A load first: the swap (a locked instruction) only once.
    if LOOP_SCHEDULED.get() || LOOP_SCHEDULED.replace(true) {
        return;
    }
    if let Ok(f) = ext_php_rs::types::ZendCallable::try_from_name("register_shutdown_function") {
        let mut cb = Zval::new();
        let _ = cb.set_string("Swoole\\Event::rshutdown", false);
        let _ = f.try_call(vec![&cb]);
    }
}

/// True inside a coroutine or a running loop (`Co\run()`, `Event::wait()`),
/// where `Server::start()` is refused as in Swoole.
pub fn in_event_loop() -> bool {
    coro::current() >= 0 || LOOP_RUNNING.get()
}

/// Whether `Coroutine::set(['exit_condition' => ...])` holds a callable.
pub fn has_exit_condition() -> bool {
    with_exit_condition(|c| c.borrow().is_some())
}

/// `enable_deadlock_check` (on by default): whether `run_loop` reports
/// coroutines left waiting forever.
static DEADLOCK_CHECK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Runs the loop until nothing is left; reports a deadlock. False when a
/// loop is already running.
pub fn run_loop() -> bool {
    if LOOP_RUNNING.replace(true) {
        return false;
    }
    // Timers a last `Event::dispatch()` round held back go first.
    super::timer::fire_owed();
    coro::run_loop();
    // `exit_condition`: the loop ends only once it says so (until then the
    // process idles, checking it every 10 ms, as Swoole's reactor does).
    while let Some(cond) = with_exit_condition(|c| c.borrow().as_ref().map(Zval::shallow_clone)) {
        let done = boundary::call(&cond, &mut [])
            .map(|r| {
                r.bool()
                    .or_else(|| r.long().map(|n| n != 0))
                    .unwrap_or(false)
            })
            .unwrap_or(true);
        if done {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
        coro::run_loop();
    }
    LOOP_RUNNING.set(false);
    LOOP_PENDING.set(false);
    // Coroutines that can never wake; each is reported once.
    let mut stuck = coro::newly_stuck();
    if !stuck.is_empty() && DEADLOCK_CHECK.load(std::sync::atomic::Ordering::Relaxed) {
        // As Swoole: the newest coroutine first, each with its backtrace.
        stuck.sort_unstable_by(|a, b| b.cmp(a));
        let (head, end) = coro::deadlock_report(stuck.len());
        let mut out = head;
        for cid in stuck {
            out.push_str(&format!("\n  [Coroutine-{cid}]\n {}\n", "-".repeat(65)));
            // DEBUG_BACKTRACE_IGNORE_ARGS
            if let Some(t) = coro::trace(cid, 2, 0) {
                out.push_str(&trace_text(&t));
            }
        }
        out.push_str(&end);
        ext_php_rs::php_print!("{}", out);
    }
    true
}

/// A backtrace array as `debug_print_backtrace()` prints it without
/// arguments: `#0 file(line): Class::function()` per frame.
fn trace_text(t: &Zval) -> String {
    let mut out = String::new();
    let Some(frames) = t.array() else {
        return out;
    };
    for (i, (_, f)) in frames.iter().enumerate() {
        let Some(f) = f.array() else { continue };
        let get = |k: &str| f.get(k).and_then(Zval::string).unwrap_or_default();
        let place = match (
            f.get("file").and_then(Zval::string),
            f.get("line").and_then(Zval::long),
        ) {
            (Some(file), Some(line)) => format!("{file}({line})"),
            _ => "[internal function]".to_string(),
        };
        out.push_str(&format!(
            "#{i} {place}: {}{}{}()\n",
            get("class"),
            get("type"),
            get("function")
        ));
    }
    out
}

/// Starts a coroutine running `job`; returns its cid, or false (with a
/// warning) at the `max_coroutine` limit.
pub fn spawn(job: Job) -> Result<Cid, coro::Error> {
    spawn_pending(&mut Some(job.into()))
}

/// `spawn` for a body with no `done` (`go()`), built in place.
fn spawn_go(callable: Zval, args: Vec<Zval>) -> Result<Cid, coro::Error> {
    spawn_pending(&mut Some(Pending {
        callable,
        args: Args::Vec(args),
        done: None,
    }))
}

/// A request's body (`spawn_two`): a borrowed closure, two arguments and
/// a small `done` of a type `entry_two` knows (called inline, not through
/// `Done`'s pointers).
struct TwoJob<F> {
    /// The caller's closure, borrowed for the start (see `spawn_two`).
    callable: *const Zval,
    args: [Zval; 2],
    done: F,
}

/// `spawn` for a body with two arguments (a request's) and a small `done`:
/// nothing of it is allocated. `done` gets the body's outcome, or `None`
/// (and is dropped) when `max_coroutine` refused the coroutine.
///
/// A closure `callable` is not even referenced: the coroutine starts at
/// once, with the caller's `callable` alive on its stack, and from the
/// call's start PHP holds the closure itself (`zend_call_function` adds a
/// reference for the call's life). Anything else (a method callable's
/// object is held by the callable alone), and a start put off, hold a
/// reference of their own.
#[inline(always)]
pub fn spawn_two<F: FnOnce(Option<Result<(), CallError>>) + 'static>(
    callable: &Zval,
    args: [Zval; 2],
    done: F,
) -> Result<Cid, coro::Error> {
    if !is_closure(callable) {
        return spawn_two_owned(callable.shallow_clone(), args, done);
    }
    schedule_loop();
    let mut slot = Some(TwoJob {
        callable: std::ptr::from_ref(callable),
        args,
        done,
    });
    let r = coro::start_with(std::ptr::from_mut(&mut slot) as usize, Some(entry_two::<F>));
    if let Some(job) = slot.take() {
        // Not taken: the start was put off (the job waits in the map, with
        // a reference of its own to the closure), or it failed.
        match r {
            Ok((cid, false)) => {
                let done = job.done;
                let pending = Pending {
                    // SAFETY: the caller's live `callable` (see above).
                    callable: unsafe { &*job.callable }.shallow_clone(),
                    args: Args::Two(job.args),
                    done: Some(Done::new(move |r| done(Some(r)))),
                };
                with_tables(|t| t.borrow_mut().jobs.insert(cid, pending));
            }
            Err(coro::Error::Limit(_)) => (job.done)(None),
            _ => drop(job),
        }
    }
    r.map(|(cid, _)| cid)
}

/// `spawn_two` for a callable that is not a closure.
#[cold]
fn spawn_two_owned<F: FnOnce(Option<Result<(), CallError>>) + 'static>(
    callable: Zval,
    args: [Zval; 2],
    done: F,
) -> Result<Cid, coro::Error> {
    // `done` is called once, by the body or (refused) here.
    let cell = std::rc::Rc::new(std::cell::Cell::new(Some(done)));
    let inner = cell.clone();
    let mut slot = Some(Pending {
        callable,
        args: Args::Two(args),
        done: Some(Done::new(move |r| {
            if let Some(d) = inner.take() {
                d(Some(r));
            }
        })),
    });
    let r = spawn_pending(&mut slot);
    if let Err(coro::Error::Limit(_)) = r {
        if let Some(d) = cell.take() {
            d(None);
        }
    }
    r
}

/// Whether a `done` of type `F` fits a rescue's data (see `entry_two`).
const fn fits_rescue<F>() -> bool {
    std::mem::size_of::<F>() <= std::mem::size_of::<[usize; 2]>()
        && std::mem::align_of::<F>() <= std::mem::align_of::<usize>()
}

/// A `spawn_two` body bailed out (its context's zend_try caught it): its
/// `done`, kept in `data`, gets the fatal outcome, after its defers, as
/// `entry_two` does for a call that returns `Fatal`. Its arguments are
/// left to PHP's request end (the worker stops after a fatal error).
fn rescue_two<F: FnOnce(Option<Result<(), CallError>>)>(cid: Cid, data: [usize; 2]) {
    // SAFETY: `entry_two` wrote an `F` here and left it for this call.
    let done = unsafe { data.as_ptr().cast::<F>().read() };
    let e = boundary::rescued_fatal();
    after_body(cid);
    done(Some(Err(e)));
}

/// Runs a `spawn_two` body (`coro::start_with`'s body): as `entry`, with
/// the job's types known.
fn entry_two<F: FnOnce(Option<Result<(), CallError>>)>(cid: Cid, payload: usize) {
    let slot = payload as *mut Option<TwoJob<F>>;
    // SAFETY: `spawn_two` passed its live slot, on its stack for the
    // whole start; the job is moved out once, onto this coroutine's stack.
    let Some(job) = (unsafe { (*slot).take() }) else {
        return;
    };
    let TwoJob {
        callable,
        args,
        done,
    } = job;
    // Released in place below (`release_zval`): never dropped as a whole.
    let mut args = std::mem::ManuallyDrop::new(args);
    // SAFETY: the spawner's closure, alive until this call has started
    // (see `spawn_two`); PHP holds it from then on.
    let callable = unsafe { &*callable };
    // The call runs under the context's own zend_try (no setjmp per
    // request): `done` waits in the context's rescue slot meanwhile, for
    // `rescue_two` to run if the body bails out. A `done` of more than two
    // words (or a body not on a context of ours) takes the guarded call.
    let slot = coro::context::rescue_slot().filter(|_| fits_rescue::<F>());
    let (result, done) = match slot {
        Some(slot) => {
            let mut data = [0usize; 2];
            // SAFETY: `F` fits `data` (`fits_rescue`); it is read back
            // once, below or by `rescue_two`.
            unsafe {
                data.as_mut_ptr().cast::<F>().write(done);
                slot.write(Some(coro::context::Rescue {
                    f: rescue_two::<F>,
                    cid,
                    data,
                }));
            }
            let result = boundary::call_in_context(callable, args.as_mut_slice());
            // SAFETY: the slot of the context this body runs on (still
            // set: only a bailout takes it, and then this never returns).
            let data = unsafe { slot.replace(None) }.map_or([0; 2], |r| r.data);
            // SAFETY: written above, read once.
            (result, unsafe { data.as_ptr().cast::<F>().read() })
        }
        None => (boundary::call(callable, args.as_mut_slice()), done),
    };
    let result = result.map(|z| {
        release_zval(&mut std::mem::ManuallyDrop::new(z));
    });
    let release = |args: &mut [Zval; 2]| {
        release_zval(&mut args[0]);
        release_zval(&mut args[1]);
    };
    let result = match result {
        Ok(()) => boundary::release_with(|| release(&mut args)),
        Err(CallError::Unwind) => {
            // PHP is tearing the fiber down: no defers, no more PHP here.
            coro::set_unwinding();
            // SAFETY: dropped once, here.
            unsafe { std::mem::ManuallyDrop::drop(&mut args) };
            drop(done);
            return;
        }
        Err(e @ CallError::Exception) => match boundary::release_with(|| release(&mut args)) {
            Err(f @ (CallError::Fatal(_) | CallError::Exit(_))) => Err(f),
            _ => Err(e),
        },
        Err(e) => {
            release(&mut args);
            Err(e)
        }
    };
    after_body(cid);
    done(Some(result));
}

/// Starts the job in `slot` (by reference: built in place by the caller).
#[inline(always)]
fn spawn_pending(slot: &mut Option<Pending>) -> Result<Cid, coro::Error> {
    schedule_loop();
    // Handed to `entry` by address: no table on the way.
    let r = coro::start(std::ptr::from_mut(slot) as usize);
    if let Some(job) = slot.take() {
        // Not taken: the start was put off (the job waits in the map), or
        // it failed.
        if let Ok((cid, false)) = r {
            with_tables(|t| t.borrow_mut().jobs.insert(cid, job));
        } else {
            drop(job);
        }
    }
    r.map(|(cid, _)| cid)
}

/// PHP's words for a `[class or object, method]` that is not callable.
fn array_callable_problem(z: &Zval) -> Option<String> {
    let arr = z.array()?;
    if arr.len() != 2 {
        return None;
    }
    let target = arr.get_index(0)?;
    let method = arr.get_index(1)?.string()?;
    let class = match target.object() {
        Some(obj) => obj.get_class_name().ok()?,
        None => target.string()?,
    };
    if ClassEntry::try_find(&class).is_none() {
        return Some(format!("class \"{class}\" not found"));
    }
    let exists = ext_php_rs::types::ZendCallable::try_from_name("method_exists")
        .ok()
        .and_then(|f| {
            let mut cls = Zval::new();
            let _ = cls.set_string(&class, false);
            let mut m = Zval::new();
            let _ = m.set_string(&method, false);
            f.try_call(vec![&cls, &m]).ok()
        })
        .and_then(|r| r.bool())
        .unwrap_or(false);
    let class = ClassEntry::try_find(&class)
        .and_then(|ce| ce.name())
        .map(str::to_string)
        .unwrap_or(class);
    Some(if exists {
        format!("cannot access private method {class}::{method}()")
    } else {
        format!("class {class} does not have a method \"{method}\"")
    })
}

/// The second half of PHP's "must be a valid callback, ..." message.
pub fn callable_problem(z: &Zval) -> String {
    match z.str() {
        Some(name) if name.contains("::") => format!(
            "class \"{}\" not found",
            name.split("::").next().unwrap_or(name)
        ),
        Some(name) => format!("function \"{name}\" not found or invalid function name"),
        None if z.is_array() => array_callable_problem(z)
            .unwrap_or_else(|| "array callback must have exactly two members".to_string()),
        None => "no array or string given".to_string(),
    }
}

fn go_impl(func: &Zval, args: &[&Zval]) -> PhpResult<Zval> {
    if !func.is_callable() {
        return Err(type_error(format!(
            "Swoole\\Coroutine::create(): Argument #1 ($func) must be a valid callback, {}",
            callable_problem(func)
        )));
    }
    let args = args.iter().map(|z| z.shallow_clone()).collect();
    let mut out = Zval::new();
    match spawn_go(func.shallow_clone(), args) {
        Ok(cid) => out.set_long(cid),
        Err(coro::Error::Limit(n)) => {
            php_error(
                &ErrorType::Warning,
                &format!("exceed max number of coroutine {n}"),
            );
            out.set_bool(false);
        }
        Err(_) => out.set_bool(false),
    }
    Ok(out)
}

// Fast paths (see `table::install_fast`): `go()` and `Coroutine::create()`
// read their arguments straight from the frame; anything unusual (no
// callable) falls through to the generated handler and its errors.
fn go_fast(ex: &mut ext_php_rs::zend::ExecuteData, ret: &mut Zval) -> bool {
    use super::table::{arg, argc};
    let n = argc(ex);
    let Some(func) = arg(ex, 0) else {
        return false;
    };
    // A closure (the usual argument) is callable: no lookup for it.
    if !is_closure(func) && !func.is_callable() {
        return false;
    }
    let args = (1..n)
        .filter_map(|i| arg(ex, i).map(Zval::shallow_clone))
        .collect();
    match spawn_go(func.shallow_clone(), args) {
        Ok(cid) => super::table::ret_long(ret, cid),
        Err(coro::Error::Limit(n)) => {
            php_error(
                &ErrorType::Warning,
                &format!("exceed max number of coroutine {n}"),
            );
            super::table::ret_bool(ret, false);
        }
        Err(_) => super::table::ret_bool(ret, false),
    }
    true
}

extern "C" {
    static zend_ce_closure: *mut ext_php_rs::ffi::zend_class_entry;
}

/// True for a `\Closure` object.
fn is_closure(z: &Zval) -> bool {
    // SAFETY: a zval of type IS_OBJECT holds a live object; zend_ce_closure
    // is set at engine startup.
    unsafe {
        z.u1.type_info & 0xff == ext_php_rs::ffi::IS_OBJECT
            && !z.value.obj.is_null()
            && std::ptr::eq((*z.value.obj).ce, zend_ce_closure)
    }
}

/// `Coroutine::sleep($seconds)` / `System::sleep($seconds)` with a number.
fn sleep_fast(ex: &mut ext_php_rs::zend::ExecuteData, ret: &mut Zval) -> bool {
    use super::table::{arg, argc};
    if argc(ex) != 1 {
        return false;
    }
    let Some(secs) = arg(ex, 0).and_then(|z| z.double().or_else(|| z.long().map(|l| l as f64)))
    else {
        return false;
    };
    match sleep_impl(secs) {
        Ok(b) => super::table::ret_bool(ret, b),
        Err(e) => {
            e.throw();
        }
    }
    true
}

crate::rsw_fast_handler!(co_sleep_handler, CO_SLEEP, sleep_fast);
crate::rsw_fast_handler!(system_sleep_handler, SYSTEM_SLEEP, sleep_fast);
crate::rsw_fast_handler!(go_handler, GO_FN, go_fast);
crate::rsw_fast_handler!(create_handler, CO_CREATE, go_fast);

/// Installs the fast paths (module startup, after `args::install`).
pub fn after_classes() {
    use ext_php_rs::class::RegisteredClass;
    let ce = <Coroutine as RegisteredClass>::get_metadata().ce();
    super::table::install_fast(ce, "create", create_handler, &CO_CREATE);
    super::table::install_fast(ce, "sleep", co_sleep_handler, &CO_SLEEP);
    let ce = <System as RegisteredClass>::get_metadata().ce();
    super::table::install_fast(ce, "sleep", system_sleep_handler, &SYSTEM_SLEEP);
    // SAFETY: MINIT, single-threaded: CG(function_table) holds `go` (an
    // internal function of this module, unless use_shortname removed it);
    // only its handler pointer changes, once the original is saved.
    unsafe {
        let table = ext_php_rs::ffi::compiler_globals.function_table;
        if table.is_null() {
            return;
        }
        let f = ext_php_rs::ffi::zend_hash_str_find_ptr_lc(table, c"go".as_ptr(), 2)
            .cast::<ext_php_rs::ffi::zend_function>();
        if f.is_null() || (*f).type_ != ext_php_rs::ffi::ZEND_INTERNAL_FUNCTION as u8 {
            return;
        }
        let Some(orig) = (*f).internal_function.handler else {
            return;
        };
        if GO_FN.set(orig).is_ok() {
            (*f).internal_function.handler = Some(go_handler);
        }
    }
}

fn long_or_false(v: Option<i64>) -> Zval {
    let mut z = Zval::new();
    match v {
        Some(n) => z.set_long(n),
        None => z.set_bool(false),
    }
    z
}

fn int_array(items: impl IntoIterator<Item = (&'static str, i64)>) -> Zval {
    let mut ht = ZendHashTable::new();
    for (k, v) in items {
        let _ = ht.insert(k, v);
    }
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

fn new_object(class: &str, args: Vec<&dyn ext_php_rs::convert::IntoZvalDyn>) -> Option<Zval> {
    new_object_of(ClassEntry::try_find(class)?, args)
}

fn new_object_of(
    ce: &'static ClassEntry,
    args: Vec<&dyn ext_php_rs::convert::IntoZvalDyn>,
) -> Option<Zval> {
    use ext_php_rs::convert::IntoZval;
    let obj = ZendObject::new(ce);
    obj.try_call_method("__construct", args).ok()?;
    let mut z = Zval::new();
    obj.set_zval(&mut z, false).ok()?;
    Some(z)
}

fn sleep_impl(seconds: f64) -> PhpResult<bool> {
    need_coroutine()?;
    if seconds < 0.0 || !seconds.is_finite() {
        return Ok(false);
    }
    coro::sleep(Duration::from_secs_f64(seconds)).map_err(|e| match e {
        coro::Error::SwitchBlocked => switch_blocked_error(),
        _ => out_of_coroutine(),
    })?;
    if coro::is_canceled() {
        set_last_error(SWOOLE_ERROR_CO_CANCELED);
        return Ok(false);
    }
    Ok(true)
}

/// `Coroutine::yield()`/`suspend()`: false (last error
/// `SWOOLE_ERROR_CO_CANCELED`) when `Coroutine::cancel()` ended the wait.
fn user_wait() -> PhpResult<bool> {
    // Swoole's message here has no method name in front.
    let w = coro::wait(WaitKind::User, None).map_err(|_| out_of_coroutine())?;
    if w != Wake::Resumed && coro::is_canceled() {
        set_last_error(SWOOLE_ERROR_CO_CANCELED);
        return Ok(false);
    }
    Ok(w == Wake::Resumed)
}

/// `Coroutine::cancel()`.
fn cancel_impl(cid: i64, throw_exception: bool) -> bool {
    let refused = if throw_exception && cid != coro::current() {
        match coro::throw_into(cid, OWED_CANCELED) {
            Ok(()) => return true,
            Err(coro::ThrowError::NotExists) => SWOOLE_ERROR_CO_NOT_EXISTS,
            Err(coro::ThrowError::AlreadyOwed) => SWOOLE_ERROR_CO_CANCELED,
        }
    } else {
        match coro::cancel(cid) {
            Ok(()) => return true,
            Err(coro::CancelError::NotExists) => SWOOLE_ERROR_CO_NOT_EXISTS,
            Err(coro::CancelError::CannotCancel) => SWOOLE_ERROR_CO_CANNOT_CANCEL,
        }
    };
    set_last_error(refused);
    false
}

/// PHP's own `FiberError` for a wait where PHP forbids switching fibers.
pub fn switch_blocked_error() -> PhpException {
    let ce = ext_php_rs::zend::ClassEntry::try_find("FiberError").unwrap_or_else(error_ce);
    PhpException::new(
        "Cannot switch fibers in current execution context".into(),
        0,
        ce,
    )
}

fn timeout_of(t: f64) -> Option<Duration> {
    (t > 0.0 && t.is_finite()).then(|| Duration::from_secs_f64(t))
}

#[php_class]
#[php(name = "Swoole\\Coroutine")]
pub struct Coroutine;

#[php_impl]
impl Coroutine {
    /// Starts a coroutine; returns its cid.
    pub fn create(func: &Zval, args: &[&Zval]) -> PhpResult<Zval> {
        go_impl(func, args)
    }

    #[php(defaults(throw_exception = false))]
    pub fn cancel(cid: i64, throw_exception: bool) -> bool {
        cancel_impl(cid, throw_exception)
    }

    #[php(name = "isCanceled")]
    pub fn is_canceled() -> bool {
        coro::is_canceled()
    }

    pub fn get_cid() -> i64 {
        coro::current()
    }

    pub fn get_pcid(cid: Option<i64>) -> Zval {
        let cid = cid.filter(|c| *c > 0).unwrap_or_else(coro::current);
        long_or_false(coro::parent(cid))
    }

    pub fn exists(cid: i64) -> bool {
        coro::exists(cid)
    }

    /// An iterator over the live cids (Swoole returns an `ArrayIterator`).
    pub fn list() -> Zval {
        let mut ht = ZendHashTable::new();
        for cid in coro::list() {
            let _ = ht.push(cid);
        }
        let mut arr = Zval::new();
        arr.set_hashtable(ht);
        new_object("Swoole\\Coroutine\\Iterator", vec![&arr]).unwrap_or(arr)
    }

    pub fn stats() -> Zval {
        int_array([
            ("event_num", event_loop::live_tasks() as i64),
            (
                "signal_listener_num",
                crate::engine::proc::user::listened_count() as i64,
            ),
            ("aio_task_num", 0),
            ("aio_worker_num", 0),
            ("aio_queue_size", 0),
            ("c_stack_size", coro::context::stack_size() as i64),
            ("coroutine_num", coro::count() as i64),
            ("coroutine_peak_num", coro::peak() as i64),
            ("coroutine_last_cid", coro::last_cid()),
        ])
    }

    /// The coroutine's context (an `ArrayObject`), freed when it ends.
    pub fn get_context(cid: Option<i64>) -> Zval {
        let cid = cid.filter(|c| *c > 0).unwrap_or_else(coro::current);
        if !coro::exists(cid) {
            let mut z = Zval::new();
            z.set_null();
            return z;
        }
        if let Some(z) = with_tables(|t| t.borrow().contexts.get(&cid).map(Zval::shallow_clone)) {
            return z;
        }
        let ce = CONTEXT_CE.get().map(|c| c.0);
        let Some(obj) = ce.and_then(|ce| new_object_of(ce, vec![])) else {
            return Zval::new();
        };
        TABLES_USED.set(true);
        with_tables(|t| t.borrow_mut().contexts.insert(cid, obj.shallow_clone()));
        obj
    }

    /// Runs `$callback` when the current coroutine ends (LIFO).
    pub fn defer(callback: &Zval) -> PhpResult<()> {
        defer_impl(callback)
    }

    /// Alias of `getCid()`.
    pub fn getuid() -> i64 {
        coro::current()
    }

    #[php(name = "readFile", defaults(flag = 0))]
    pub fn read_file(filename: &str, flag: i64) -> PhpResult<Zval> {
        read_file_impl(filename, flag)
    }

    #[php(name = "writeFile", defaults(flags = 0))]
    pub fn write_file(filename: &str, file_content: &Zval, flags: i64) -> PhpResult<Zval> {
        write_file_impl(filename, file_content, flags)
    }

    pub fn statvfs(path: &str) -> PhpResult<Zval> {
        statvfs_impl(path)
    }

    #[php(defaults(r#type = 2, timeout = -1.0))]
    pub fn gethostbyname(domain_name: &str, r#type: i64, timeout: f64) -> PhpResult<Zval> {
        super::system_coro::gethostbyname(domain_name, r#type, timeout)
    }

    #[php(defaults(family = 2, socktype = 1, protocol = 6, timeout = -1.0))]
    pub fn getaddrinfo(
        domain: &str,
        family: i64,
        socktype: i64,
        protocol: i64,
        service: Option<String>,
        timeout: f64,
    ) -> PhpResult<Zval> {
        let _ = (socktype, protocol, service);
        super::system_coro::getaddrinfo(domain, family, timeout)
    }

    #[php(name = "dnsLookup", defaults(timeout = 60.0, r#type = 2))]
    pub fn dns_lookup(domain_name: &str, timeout: f64, r#type: i64) -> PhpResult<Zval> {
        super::system_coro::dns_lookup(domain_name, timeout, r#type)
    }

    #[php(defaults(get_error_stream = false))]
    pub fn exec(command: &str, get_error_stream: bool) -> PhpResult<Zval> {
        super::system_coro::exec(command, get_error_stream)
    }

    #[php(defaults(timeout = -1.0))]
    pub fn wait(timeout: f64) -> PhpResult<Zval> {
        super::system_coro::wait_pid(-1, timeout)
    }

    #[php(name = "waitPid", defaults(timeout = -1.0))]
    pub fn wait_pid(pid: i64, timeout: f64) -> PhpResult<Zval> {
        super::system_coro::wait_pid(pid, timeout)
    }

    #[php(name = "waitSignal", defaults(timeout = -1.0))]
    pub fn wait_signal(signals: &Zval, timeout: f64) -> PhpResult<Zval> {
        super::system_coro::wait_signal(signals, timeout)
    }

    #[php(name = "waitEvent", defaults(events = 512, timeout = -1.0))]
    pub fn wait_event(socket: &Zval, events: i64, timeout: f64) -> PhpResult<Zval> {
        super::system_coro::wait_event(socket, events, timeout)
    }

    pub fn sleep(seconds: f64) -> PhpResult<bool> {
        sleep_impl(seconds)
    }

    /// Suspends the current coroutine until `resume($cid)`.
    #[php(name = "yield")]
    pub fn yield_() -> PhpResult<bool> {
        user_wait()
    }

    pub fn suspend() -> PhpResult<bool> {
        user_wait()
    }

    pub fn resume(cid: i64) -> bool {
        if coro::resume_kind(cid, WaitKind::User, Wake::Resumed) {
            return true;
        }
        set_last_error(SWOOLE_ERROR_CO_NOT_EXISTS);
        php_error(
            &ErrorType::Warning,
            "can not resume the coroutine which is in IO operation or non-existent",
        );
        false
    }

    /// Waits for every cid in `$cid_array` to end; false on timeout (and
    /// when none of them is running: nothing to wait for).
    pub fn join(cid_array: Vec<i64>, timeout: Option<f64>) -> PhpResult<bool> {
        need_coroutine()?;
        if cid_array.is_empty() {
            set_last_error(SWOOLE_ERROR_INVALID_PARAMS);
            return Ok(false);
        }
        // As Swoole: joining self, or a coroutine another join already
        // waits for, is a wrong operation; cids that do not exist are skipped.
        if cid_array.contains(&coro::current()) {
            set_last_error(SWOOLE_ERROR_WRONG_OPERATION);
            return Ok(false);
        }
        let live: Vec<i64> = cid_array
            .iter()
            .copied()
            .filter(|c| coro::exists(*c))
            .collect();
        if with_joined(|j| live.iter().any(|c| j.borrow().contains(c))) {
            set_last_error(SWOOLE_ERROR_WRONG_OPERATION);
            return Ok(false);
        }
        if live.is_empty() {
            set_last_error(SWOOLE_ERROR_INVALID_PARAMS);
            return Ok(false);
        }
        with_joined(|j| j.borrow_mut().extend(live.iter().copied()));
        let r = coro::join(&live, timeout.and_then(timeout_of));
        with_joined(|j| {
            let mut j = j.borrow_mut();
            for c in &live {
                j.remove(c);
            }
        });
        let done = r.map_err(|_| out_of_coroutine())?;
        if !done {
            set_last_error(if coro::is_canceled() {
                SWOOLE_ERROR_CO_CANCELED
            } else {
                SWOOLE_ERROR_CO_TIMEDOUT
            });
        }
        Ok(done)
    }

    /// Throws a `Coroutine\TimeoutException` into the current coroutine
    /// at its first wait after `timeout` seconds (false for 0; Swoole's
    /// `Swoole\Error` outside a coroutine).
    #[php(name = "setTimeLimit")]
    pub fn set_time_limit(timeout: f64) -> PhpResult<bool> {
        let cid = need_coroutine()?;
        if timeout <= 0.0 || !timeout.is_finite() {
            return Ok(false);
        }
        let d = Duration::from_secs_f64(timeout);
        // A loop task, as Swoole's timer: it keeps the loop alive until due.
        drop(event_loop::spawn(async move {
            tokio::time::sleep(d).await;
            let _ = coro::throw_into(cid, OWED_TIMEOUT);
        }));
        Ok(true)
    }

    pub fn get_elapsed(cid: Option<i64>) -> i64 {
        // 0 (the default) is the current coroutine; any other id is looked up.
        let cid = cid.filter(|c| *c != 0).unwrap_or_else(coro::current);
        coro::elapsed_ms(cid).unwrap_or(-1)
    }

    /// The current coroutine's backtrace (other coroutines: false).
    pub fn get_back_trace(cid: Option<i64>, options: Option<i64>, limit: Option<i64>) -> Zval {
        let cid = cid.filter(|c| *c > 0).unwrap_or_else(coro::current);
        let (o, l) = (options.unwrap_or(1), limit.unwrap_or(0));
        if cid != coro::current() {
            return match coro::trace(cid, o, l) {
                Some(z) => z,
                None => {
                    let mut z = Zval::new();
                    z.set_bool(false);
                    z
                }
            };
        }
        let f = ext_php_rs::types::ZendCallable::try_from_name("debug_backtrace");
        f.ok()
            .and_then(|f| f.try_call(vec![&o, &l]).ok())
            .unwrap_or_default()
    }

    /// `['max_coroutine' => n, 'hook_flags' => flags,
    /// 'enable_preemptive_scheduler' => bool, ...]`; other coroutine options
    /// are accepted.
    pub fn set(options: &ZendHashTable) {
        for key in ["max_coroutine", "max_coro_num"] {
            if let Some(n) = options.get(key).and_then(Zval::long) {
                coro::set_max(n.max(0) as usize);
            }
        }
        for key in ["c_stack_size", "stack_size"] {
            if let Some(n) = options.get(key).and_then(Zval::long) {
                // As Swoole (an unsigned size): a negative one is the largest.
                coro::context::set_stack_size(usize::try_from(n).unwrap_or(usize::MAX));
                break;
            }
        }
        if let Some(v) = options.get("enable_deadlock_check") {
            let on = v.bool().or(v.long().map(|n| n != 0)).unwrap_or(true);
            DEADLOCK_CHECK.store(on, std::sync::atomic::Ordering::Relaxed);
        }
        if let Some(v) = options.get("exit_condition") {
            let cond = v.is_callable().then(|| v.shallow_clone());
            with_exit_condition(|c| *c.borrow_mut() = cond);
        }
        if let Some(v) = options.get("enable_coroutine") {
            super::timer::set_enable_coroutine(
                v.bool().or(v.long().map(|n| n != 0)).unwrap_or(true),
            );
        }
        if let Some(v) = options.get("hook_flags") {
            let flags = v
                .long()
                .or_else(|| v.double().map(|d| d as i64))
                .or_else(|| v.bool().map(i64::from));
            if let Some(flags) = flags {
                super::runtime::apply(flags);
            }
        }
        if let Some(v) = options.get("enable_preemptive_scheduler") {
            let on = v.bool().unwrap_or(false) || v.long().is_some_and(|n| n != 0);
            coro::preempt::set(on);
        }
    }

    /// Lets the preemptive scheduler interrupt the calling coroutine again.
    pub fn enable_scheduler() -> bool {
        let cid = coro::current();
        cid >= 0 && coro::preempt::exempt(cid, false)
    }

    /// Exempts the calling coroutine from the preemptive scheduler.
    pub fn disable_scheduler() -> bool {
        let cid = coro::current();
        cid >= 0 && coro::preempt::exempt(cid, true)
    }

    pub fn get_options() -> Zval {
        int_array([("max_coroutine", coro::max() as i64)])
    }
}

fn defer_impl(callback: &Zval) -> PhpResult<()> {
    let cid = need_coroutine()?;
    if !callback.is_callable() {
        return Err(type_error(
            "Swoole\\Coroutine::defer(): Argument #1 ($callback) must be a valid callback",
        ));
    }
    TABLES_USED.set(true);
    with_tables(|t| {
        t.borrow_mut()
            .defers
            .entry(cid)
            .or_default()
            .push(callback.shallow_clone())
    });
    Ok(())
}

#[php_class]
#[php(name = "Swoole\\Coroutine\\System")]
pub struct System;

#[php_impl]
impl System {
    pub fn sleep(seconds: f64) -> PhpResult<bool> {
        sleep_impl(seconds)
    }

    #[php(name = "readFile", defaults(flag = 0))]
    pub fn read_file(filename: &str, flag: i64) -> PhpResult<Zval> {
        read_file_impl(filename, flag)
    }

    #[php(name = "writeFile", defaults(flags = 0))]
    pub fn write_file(filename: &str, file_content: &Zval, flags: i64) -> PhpResult<Zval> {
        write_file_impl(filename, file_content, flags)
    }

    pub fn statvfs(path: &str) -> PhpResult<Zval> {
        statvfs_impl(path)
    }

    #[php(defaults(r#type = 2, timeout = -1.0))]
    pub fn gethostbyname(domain_name: &str, r#type: i64, timeout: f64) -> PhpResult<Zval> {
        super::system_coro::gethostbyname(domain_name, r#type, timeout)
    }

    #[php(defaults(family = 2, socktype = 1, protocol = 6, timeout = -1.0))]
    pub fn getaddrinfo(
        domain: &str,
        family: i64,
        socktype: i64,
        protocol: i64,
        service: Option<String>,
        timeout: f64,
    ) -> PhpResult<Zval> {
        let _ = (socktype, protocol, service);
        super::system_coro::getaddrinfo(domain, family, timeout)
    }

    #[php(name = "dnsLookup", defaults(timeout = 60.0, r#type = 2))]
    pub fn dns_lookup(domain_name: &str, timeout: f64, r#type: i64) -> PhpResult<Zval> {
        super::system_coro::dns_lookup(domain_name, timeout, r#type)
    }

    #[php(defaults(get_error_stream = false))]
    pub fn exec(command: &str, get_error_stream: bool) -> PhpResult<Zval> {
        super::system_coro::exec(command, get_error_stream)
    }

    #[php(defaults(timeout = -1.0))]
    pub fn wait(timeout: f64) -> PhpResult<Zval> {
        super::system_coro::wait_pid(-1, timeout)
    }

    #[php(name = "waitPid", defaults(timeout = -1.0))]
    pub fn wait_pid(pid: i64, timeout: f64) -> PhpResult<Zval> {
        super::system_coro::wait_pid(pid, timeout)
    }

    #[php(name = "waitSignal", defaults(timeout = -1.0))]
    pub fn wait_signal(signals: &Zval, timeout: f64) -> PhpResult<Zval> {
        super::system_coro::wait_signal(signals, timeout)
    }

    #[php(name = "waitEvent", defaults(events = 512, timeout = -1.0))]
    pub fn wait_event(socket: &Zval, events: i64, timeout: f64) -> PhpResult<Zval> {
        super::system_coro::wait_event(socket, events, timeout)
    }
}

fn empty_name(what: &str) -> PhpException {
    PhpException::new(
        format!("{what} cannot be empty"),
        0,
        ext_php_rs::zend::ce::value_error(),
    )
}

/// `flock()` on the open file for `LOCK_EX` (Swoole's `SW_FILE_LOCK`).
fn lock(f: &std::fs::File, op: i64) {
    if op & i64::from(libc::LOCK_EX) != 0 {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this function's caller owns.
        unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
    }
}

fn io_warning(call: &str, e: &std::io::Error) {
    let code = e.raw_os_error().unwrap_or(0);
    crate::engine::log::log(
        crate::engine::log::Level::Warning,
        &format!(
            "{call} failed, Error: {}[{code}]",
            super::errors::os_error_text(i64::from(code))
        ),
    );
}

fn read_file_impl(filename: &str, flag: i64) -> PhpResult<Zval> {
    if filename.is_empty() {
        return Err(empty_name("Filename"));
    }
    need_coroutine()?;
    let mut z = Zval::new();
    // On the blocking pool, as Swoole reads on its AIO threads: the
    // coroutine waits (other coroutines run) however fast the disk is.
    let path = filename.to_string();
    let job = async move {
        tokio::task::spawn_blocking(move || {
            std::fs::File::open(&path).and_then(|mut f| {
                use std::io::Read;
                lock(&f, flag);
                let mut buf = Vec::new();
                f.read_to_end(&mut buf).map(|_| buf)
            })
        })
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
    };
    let read = match coro::io::run(job) {
        Ok(r) => r,
        Err(_) => {
            z.set_bool(false);
            return Ok(z);
        }
    };
    match read {
        Ok(buf) => z = super::http_request::bytes_zval(&buf),
        Err(e) => {
            io_warning(
                &format!("System::read_file(): open({filename}, O_RDONLY)"),
                &e,
            );
            z.set_bool(false);
        }
    }
    Ok(z)
}

fn write_file_impl(filename: &str, content: &Zval, flags: i64) -> PhpResult<Zval> {
    if filename.is_empty() {
        return Err(empty_name("Filename"));
    }
    need_coroutine()?;
    let data = content.zend_str().map(|s| s.as_bytes()).unwrap_or_default();
    // PHP's FILE_APPEND.
    let append = flags & 8 != 0;
    let mut oflags = libc::O_CREAT | libc::O_WRONLY | libc::O_NOFOLLOW;
    oflags |= if append {
        libc::O_APPEND
    } else {
        libc::O_TRUNC
    };
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true);
    if append {
        opts.append(true);
    } else {
        opts.truncate(true);
    }
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW).mode(0o644);
    }
    let mut z = Zval::new();
    let written = opts.open(filename).and_then(|mut f| {
        use std::io::Write;
        lock(&f, flags);
        f.write_all(data).map(|()| data.len())
    });
    match written {
        Ok(n) => z.set_long(n as i64),
        Err(e) => {
            io_warning(
                &format!("System::write_file(): open({filename}, {oflags})"),
                &e,
            );
            z.set_bool(false);
        }
    }
    Ok(z)
}

fn statvfs_impl(path: &str) -> PhpResult<Zval> {
    if path.is_empty() {
        return Err(empty_name("Path"));
    }
    need_coroutine()?;
    let mut ht = ZendHashTable::new();
    if let Ok(st) = nix::sys::statvfs::statvfs(path) {
        let fields: [(&str, u64); 11] = [
            ("bsize", st.block_size()),
            ("frsize", st.fragment_size()),
            ("blocks", st.blocks()),
            ("bfree", st.blocks_free()),
            ("bavail", st.blocks_available()),
            ("files", st.files()),
            ("ffree", st.files_free()),
            ("favail", st.files_available()),
            ("fsid", st.filesystem_id()),
            ("flag", st.flags().bits()),
            ("namemax", st.name_max()),
        ];
        for (k, v) in fields {
            let _ = ht.insert(k, v as i64);
        }
    }
    let mut z = Zval::new();
    z.set_hashtable(ht);
    Ok(z)
}

/// `go($func, ...$args)`: short name of `Swoole\Coroutine::create()`.
#[php_function]
pub fn go(func: &Zval, args: &[&Zval]) -> PhpResult<Zval> {
    go_impl(func, args)
}

/// `defer($callback)`: short name of `Swoole\Coroutine::defer()`.
#[php_function]
pub fn defer(callback: &Zval) -> PhpResult<()> {
    defer_impl(callback)
}

fn run_impl(func: &Zval, args: &[&Zval]) -> PhpResult<bool> {
    if LOOP_RUNNING.get() || coro::current() >= 0 || worker::current_worker_id() >= 0 {
        return Err(PhpException::new(
            "eventLoop has already been created. unable to create Swoole\\Coroutine\\Scheduler"
                .into(),
            0,
            error_ce(),
        ));
    }
    let z = go_impl(func, args)?;
    if z.long().is_none() {
        return Ok(false);
    }
    Ok(run_loop())
}

/// `Swoole\Coroutine\run($fn, ...$args)`: runs `$fn` in a coroutine and the
/// loop until every coroutine has ended.
#[php_function]
#[php(name = "Swoole\\Coroutine\\run")]
pub fn co_run(func: &Zval, args: &[&Zval]) -> PhpResult<bool> {
    run_impl(func, args)
}

/// `Co\run()`: the short name.
#[php_function]
#[php(name = "Co\\run")]
pub fn co_run_short(func: &Zval, args: &[&Zval]) -> PhpResult<bool> {
    run_impl(func, args)
}

/// Short names that `swoole.use_shortname=Off` removes at startup.
pub const SHORT_FUNCTIONS: &[&str] = &["go", "defer", "co\\run"];

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module
        .class::<Coroutine>()
        .class::<System>()
        .function(wrap_function!(go))
        .function(wrap_function!(defer))
        .function(wrap_function!(co_run))
        .function(wrap_function!(co_run_short))
}

/// Request shutdown: drop every PHP value the coroutine tables still hold.
pub fn shutdown() {
    // Taken out first: dropping PHP values may run destructors, which must
    // not find the tables borrowed.
    let tables = with_tables(|t| std::mem::take(&mut *t.borrow_mut()));
    drop(tables);
    drop(with_exit_condition(|c| c.borrow_mut().take()));
    coro::shutdown();
}
