//! The coroutine scheduler: Swoole coroutines on contexts of our own kind
//! switched by PHP's fiber switch (`context`), one thread, woken by tasks on
//! the engine's event loop.
//!
//! The protocol (docs/internals.md, "Coroutines"):
//! - a coroutine runs on a pooled context whose body is `run_one`: take the
//!   next cid from the hand-off slot, run it through the entry hook the PHP
//!   layer installed, return the context to the pool and switch back to the
//!   resumer; the context waits there until reused;
//! - `create` runs the new coroutine at once, until it first waits;
//! - `wait` suspends the current coroutine; `resume` continues a waiting one
//!   (from the loop, or from another coroutine, as Swoole does);
//! - nothing borrowed (no `RefCell` borrow, no PHP value guard) is held
//!   across a suspension.
//!
//! This layer never holds user values: the PHP layer keeps callables, args,
//! contexts and defers in tables keyed by cid.

pub mod cidtable;
pub mod context;
pub mod fdwait;
pub mod fiber;
pub mod io;
pub mod output;
pub mod preempt;

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::sync::atomic::{AtomicI64, AtomicPtr, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use context::{Ctx, Outcome};

use crate::engine::rt::event_loop;

pub type Cid = i64;

/// A `HashMap` keyed by cid with a multiplicative hash instead of SipHash:
/// cids are our own sequential integers (nothing to defend against), and
/// the request path looks a cid up several times per request.
pub type CidMap<V> = std::collections::HashMap<Cid, V, crate::engine::hash::IntBuild>;

/// Why a waiting coroutine was resumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Someone resumed it (data ready, sleep over, `resume($cid)`).
    Resumed,
    /// Its timeout ran out first.
    Timeout,
}

/// What a waiting coroutine waits for; `Coroutine::resume()` only resumes `User`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitKind {
    User,
    Sleep,
    Channel,
    Join,
    Io,
}

#[derive(Debug)]
pub enum Error {
    /// Called outside any coroutine.
    NotInCoroutine,
    /// `max_coroutine` reached.
    Limit(usize),
    /// The coroutine's context could not be created, or it is being
    /// unwound (request shutdown).
    Fiber,
    /// PHP forbids switching fibers here (a destructor run by the engine).
    SwitchBlocked,
}

/// A coroutine's record; it lives in its context (`Context::rec`).
struct Coro {
    pcid: Cid,
    /// When it was created: `CLOCK_MONOTONIC_COARSE`, in ns (see `now_ns`).
    started: i64,
    ctx: Option<Ctx>,
    /// Set while suspended in `wait`; bumped on every wait so a stale timeout
    /// cannot wake a later wait.
    waiting: Option<(WaitKind, u64)>,
    wake: Wake,
    /// `Coroutine::cancel()` ended its last wait (`isCanceled()`).
    canceled: bool,
    /// An exception owed to it (`throw_into`; 0: none), thrown by the throw
    /// hook when its wait returns.
    owed: u8,
    /// Its `ob_*` stack while it is suspended (see `output`).
    output: Option<Box<output::OutputGlobals>>,
}

impl Coro {
    fn blank() -> Coro {
        Coro {
            pcid: -1,
            started: 0,
            ctx: None,
            waiting: None,
            wake: Wake::Resumed,
            canceled: false,
            owed: 0,
            output: None,
        }
    }
}

struct Sched {
    /// The context of each coroutine, by cid (its record is in the
    /// context). Where order shows (`list`, shutdown) the cids are sorted.
    coros: cidtable::CidTable<Ctx>,
    next_cid: Cid,
    peak: usize,
    max: usize,
    /// The coroutine each nested resume is running, innermost last.
    stack: Vec<Cid>,
    idle: Vec<Ctx>,
    seq: u64,
    /// Coroutines waiting in `join` for any coroutine to end.
    join_waiters: Vec<Cid>,
    /// Coroutines already reported as deadlocked.
    stuck: HashSet<Cid>,
}

impl Sched {
    /// Coroutine `cid`'s record.
    #[inline]
    fn coro(&self, cid: Cid) -> Option<&Coro> {
        // SAFETY: a context in the table is live (the scheduler owns it);
        // its record is reached only through the scheduler, borrowed here.
        self.coros.get(&cid).map(|c| unsafe { &*c.rec() })
    }

    /// Coroutine `cid`'s record, to change.
    #[inline]
    fn coro_mut(&mut self, cid: Cid) -> Option<&mut Coro> {
        // SAFETY: as `coro`, with the scheduler borrowed mutably.
        self.coros.get(&cid).map(|c| unsafe { c.rec() })
    }
}

/// Idle contexts kept for reuse (beyond, a finished coroutine's stack
/// pages go back to the kernel).
const POOL_MAX: usize = 1024;
/// Swoole's default `max_coroutine`.
pub const DEFAULT_MAX: usize = 100_000;

thread_local! {
    /// Boxed: a dlopen()ed extension gets little static TLS (glibc's surplus
    /// is ~1.6 KiB for every module), and the scheduler is 240 bytes.
    static S: Box<RefCell<Sched>> = Box::new(RefCell::new(Sched {
        coros: cidtable::CidTable::default(),
        next_cid: 1,
        peak: 0,
        max: DEFAULT_MAX,
        stack: Vec::new(),
        idle: Vec::new(),
        seq: 0,
        join_waiters: Vec::new(),
        stuck: HashSet::new(),
    }));
    /// When this thread last switched into or out of a coroutine: where
    /// the running code's turn began (read by the preemptive scheduler).
    static SWITCHED_AT: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// A thread-local value of the PHP thread, reached there without a TLS
/// lookup: in a dlopen()ed library every thread-local access is a
/// `__tls_get_addr` call (about 50 instructions with `LocalKey::with`), and
/// the scheduler is touched several times per coroutine switch. `claim`
/// records the PHP thread (at module startup, on that thread) and where its
/// value lives; `get` hands the value out on that thread only, so other
/// threads keep their own thread-locals. The value must live as long as the
/// thread (a boxed thread-local does).
pub struct Pinned<T: 'static> {
    owner: std::sync::atomic::AtomicUsize,
    ptr: std::sync::atomic::AtomicPtr<T>,
}

impl<T: 'static> Pinned<T> {
    pub const fn new() -> Self {
        Pinned {
            owner: std::sync::atomic::AtomicUsize::new(0),
            ptr: std::sync::atomic::AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Pins `value`, this thread's, to this thread.
    pub fn claim(&self, value: &'static T) {
        use std::sync::atomic::Ordering;
        self.ptr
            .store(std::ptr::from_ref(value).cast_mut(), Ordering::Release);
        self.owner.store(thread_self(), Ordering::Release);
    }

    /// The pinned value, when called on the thread that claimed it.
    #[inline]
    pub fn get(&self) -> Option<&'static T> {
        use std::sync::atomic::Ordering;
        if self.owner.load(Ordering::Acquire) != thread_self() {
            return None;
        }
        // SAFETY: stored by `claim` on this very thread, from a value that
        // lives as long as the thread.
        unsafe { self.ptr.load(Ordering::Acquire).as_ref() }
    }
}

impl<T: 'static> Default for Pinned<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The calling thread's `pthread_self()`. On x86-64 glibc that is the
/// thread control block's `self` word (`%fs:0x10`, what glibc's own
/// `pthread_self` returns), read inline: `Pinned::get` runs on every
/// scheduler access, and the call through the PLT cost more than the read.
#[inline(always)]
fn thread_self() -> usize {
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    {
        let me: usize;
        // SAFETY: glibc keeps the thread's own `pthread_t` at `%fs:0x10`
        // (`tcbhead_t::self`) for the thread's whole life; the read has no
        // side effect.
        unsafe {
            std::arch::asm!(
                "mov {}, qword ptr fs:[0x10]",
                out(reg) me,
                options(nostack, readonly, preserves_flags, pure)
            );
        }
        me
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu")))]
    {
        // SAFETY: pthread_self has no preconditions.
        unsafe { libc::pthread_self() as usize }
    }
}

/// The scheduler of the PHP thread (see `Pinned`).
static S_PINNED: Pinned<RefCell<Sched>> = Pinned::new();

/// Runs `f` with this thread's scheduler. `f` is called from one place
/// only, so that it is inlined here (a call per scheduler access cost
/// its register saves).
#[inline(always)]
fn with_s<R>(f: impl FnOnce(&RefCell<Sched>) -> R) -> R {
    let s: *const RefCell<Sched> = match S_PINNED.get() {
        Some(s) => s,
        None => S.with(|s| std::ptr::from_ref::<RefCell<Sched>>(s)),
    };
    // SAFETY: the boxed scheduler of this thread, which lives as long as
    // the thread (see `S`); used only within this call, on this thread.
    f(unsafe { &*s })
}

/// Request shutdown is unwinding the coroutines: no more scheduling. A
/// process-wide flag: NTS PHP runs on one thread.
static SHUTTING_DOWN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn shutting_down() -> bool {
    SHUTTING_DOWN.load(std::sync::atomic::Ordering::Relaxed)
}

fn set_shutting_down() {
    SHUTTING_DOWN.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// When the running code's turn began (the last switch into or out of a
/// coroutine on this thread).
pub fn switched_at() -> Option<Instant> {
    SWITCHED_AT.with(Cell::get)
}

#[inline]
fn mark_switch() {
    if preempt::is_on() {
        SWITCHED_AT.with(|t| t.set(Some(Instant::now())));
    }
}

/// Installs the hook that runs coroutine `cid`'s body.
pub fn init(entry: fn(Cid, usize)) {
    fiber::install();
    // Process-wide mirrors of this thread's state start afresh: `init`
    // also runs in a forked `Swoole\Process` child, on a new thread with a
    // fresh scheduler, while the parent's values were copied by the fork.
    SHUTTING_DOWN.store(false, std::sync::atomic::Ordering::Relaxed);
    CURRENT.store(-1, std::sync::atomic::Ordering::Relaxed);
    HANDOFF_CID.store(0, Ordering::Relaxed);
    S.with(|s| {
        // SAFETY: the boxed scheduler lives as long as this (the PHP)
        // thread; the reference is only handed out on it.
        let r: &'static RefCell<Sched> = unsafe { &*std::ptr::from_ref::<RefCell<Sched>>(&**s) };
        S_PINNED.claim(r);
    });
    ENTRY.store(entry as *mut (), Ordering::Release);
}

/// The PHP layer's entry hook (set once by `init`), and the hand-off to the
/// context being started or reused: the cid (0 for none) and the caller's
/// opaque payload for the hook (see `run`). Process-wide, read without a
/// TLS access: NTS PHP runs coroutines on one thread, and a hand-off is
/// set and taken within one switch.
static ENTRY: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());
static HANDOFF_CID: AtomicI64 = AtomicI64::new(0);
static HANDOFF_PAYLOAD: AtomicUsize = AtomicUsize::new(0);
/// The body to run instead of the entry hook (null: the entry hook), for a
/// caller whose payload has a body of its own (`start_with`).
static HANDOFF_BODY: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

/// A coroutine body: `(cid, payload)`, the payload as `start_with` got it.
pub type Body = fn(Cid, usize);

#[inline(always)]
fn set_handoff(cid: Cid, payload: usize, body: Option<Body>) {
    HANDOFF_CID.store(cid, Ordering::Relaxed);
    HANDOFF_PAYLOAD.store(payload, Ordering::Relaxed);
    HANDOFF_BODY.store(
        body.map_or(std::ptr::null_mut(), |f| f as *mut ()),
        Ordering::Relaxed,
    );
}

#[inline(always)]
fn take_handoff() -> Option<(Cid, usize, Option<Body>)> {
    let cid = HANDOFF_CID.load(Ordering::Relaxed);
    HANDOFF_CID.store(0, Ordering::Relaxed);
    if cid == 0 {
        return None;
    }
    let body = HANDOFF_BODY.load(Ordering::Relaxed);
    let body = if body.is_null() {
        entry_hook()
    } else {
        // SAFETY: only ever set from a `Body` in `set_handoff`.
        Some(unsafe { std::mem::transmute::<*mut (), Body>(body) })
    };
    Some((cid, HANDOFF_PAYLOAD.load(Ordering::Relaxed), body))
}

fn entry_hook() -> Option<fn(Cid, usize)> {
    let p = ENTRY.load(Ordering::Acquire);
    if p.is_null() {
        return None;
    }
    // SAFETY: only ever set from a `fn(Cid, usize)` pointer in `init`.
    Some(unsafe { std::mem::transmute::<*mut (), fn(Cid, usize)>(p) })
}

pub fn set_max(n: usize) {
    with_s(|s| s.borrow_mut().max = if n == 0 { DEFAULT_MAX } else { n });
}

pub fn max() -> usize {
    with_s(|s| s.borrow().max)
}

/// The running coroutine, or -1 outside any.
#[inline]
pub fn current() -> Cid {
    CURRENT.load(std::sync::atomic::Ordering::Relaxed)
}

pub fn parent(cid: Cid) -> Option<Cid> {
    with_s(|s| s.borrow().coro(cid).map(|c| c.pcid))
}

pub fn exists(cid: Cid) -> bool {
    with_s(|s| s.borrow().coros.contains_key(&cid))
}

/// The live coroutines, newest first (the order Swoole's table iterates
/// in, which `Coroutine::list()` users see).
pub fn list() -> Vec<Cid> {
    let mut cids: Vec<Cid> = with_s(|s| s.borrow().coros.keys().collect());
    cids.sort_unstable_by(|a, b| b.cmp(a));
    cids
}

pub fn count() -> usize {
    with_s(|s| s.borrow().coros.len())
}

pub fn peak() -> usize {
    with_s(|s| s.borrow().peak)
}

pub fn last_cid() -> Cid {
    with_s(|s| s.borrow().next_cid - 1)
}

pub fn elapsed_ms(cid: Cid) -> Option<i64> {
    with_s(|s| {
        s.borrow()
            .coro(cid)
            .map(|c| (now_ns(libc::CLOCK_MONOTONIC) - c.started).max(0) / 1_000_000)
    })
}

/// True when `cid` is suspended in a wait of `kind`.
pub fn is_waiting(cid: Cid, kind: WaitKind) -> bool {
    with_s(|s| {
        s.borrow()
            .coro(cid)
            .is_some_and(|c| matches!(c.waiting, Some((k, _)) if k == kind))
    })
}

/// `clock` (CLOCK_MONOTONIC or its coarse twin, the same clock read at the
/// last tick) in ns. A coroutine's creation time is read coarse (a precise
/// read costs ~4% of a `go()` in this VM): it is at most a tick early, so
/// `getElapsed()` (read precise) never reports less than the real age.
#[inline]
fn now_ns(clock: libc::clockid_t) -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we pass.
    unsafe { libc::clock_gettime(clock, &raw mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// Reserves a cid (and a context) for a new coroutine; the PHP layer
/// stores its body under it, then calls `run`.
pub fn reserve() -> Result<Cid, Error> {
    // A pooled context (the usual case) is taken in the same borrow.
    let pooled = with_s(|s| {
        let mut s = s.borrow_mut();
        if s.coros.len() >= s.max {
            return Err(Error::Limit(s.max));
        }
        Ok(s.idle.pop().map(|ctx| add(&mut s, ctx)))
    })?;
    if let Some(cid) = pooled {
        return Ok(cid);
    }
    let ctx = Ctx::new().ok_or(Error::Fiber)?;
    Ok(with_s(|s| add(&mut s.borrow_mut(), ctx)))
}

/// Reserves a cid and starts it (`reserve` and `run` in one borrow of the
/// scheduler when a pooled context is free): `(cid, started now)`.
pub fn start(payload: usize) -> Result<(Cid, bool), Error> {
    start_with(payload, None)
}

/// `start`, the coroutine running `body(cid, payload)` instead of the
/// entry hook when it starts now. A start put off (`Ok((cid, false))`)
/// runs the entry hook later, with payload 0, as `start`'s does: the
/// caller must then leave what the hook needs where it looks.
pub fn start_with(payload: usize, body: Option<Body>) -> Result<(Cid, bool), Error> {
    if fiber::switch_blocked() {
        let cid = reserve()?;
        return Ok((cid, run(cid, payload)?));
    }
    let pooled = with_s(
        #[inline(always)]
        |s| {
            let mut s = s.borrow_mut();
            if s.coros.len() >= s.max {
                return Err(Error::Limit(s.max));
            }
            let Some(ctx) = s.idle.pop() else {
                return Ok(None);
            };
            let cid = add(&mut s, ctx);
            set_handoff(cid, payload, body);
            push_in(&mut s, cid);
            Ok(Some((cid, ctx)))
        },
    )?;
    let Some((cid, ctx)) = pooled else {
        let cid = reserve()?;
        return Ok((cid, run_with(cid, payload, body)?));
    };
    // A coroutine starting has no output stack of its own yet.
    switch_into_inline(cid, None, ctx);
    Ok((cid, true))
}

/// Adds a coroutine on `ctx` under the next cid (inlined: a call's
/// register saves cost as much as its body).
#[inline(always)]
fn add(s: &mut Sched, ctx: Ctx) -> Cid {
    let cid = s.next_cid;
    s.next_cid += 1;
    // The running stack's top (`CURRENT` mirrors it).
    let pcid = current();
    // SAFETY: `ctx` is live and in no table yet: nothing else refers to
    // its record.
    let rec = unsafe { ctx.rec() };
    // Field by field: the record of the context's last coroutine owns
    // nothing by now (its output stack was taken or ended with it), so
    // there is nothing to drop, and no drop call per start.
    rec.pcid = pcid;
    rec.started = now_ns(libc::CLOCK_MONOTONIC_COARSE);
    rec.ctx = Some(ctx);
    rec.waiting = None;
    rec.wake = Wake::Resumed;
    rec.canceled = false;
    rec.owed = 0;
    if rec.output.is_some() {
        rec.output = None;
    }
    s.coros.insert(cid, ctx);
    s.peak = s.peak.max(s.coros.len());
    cid
}

/// Starts coroutine `cid` (from `reserve`) and runs it until it first waits
/// or ends: `Ok(true)`; `Ok(false)` when the start was put off to the loop.
/// `payload` is handed to the entry hook as is when it starts now (0 when
/// it starts later): an opaque word of the caller's, valid for the call.
pub fn run(cid: Cid, payload: usize) -> Result<bool, Error> {
    run_with(cid, payload, None)
}

/// `run`, with `body` instead of the entry hook when it starts now.
fn run_with(cid: Cid, payload: usize, body: Option<Body>) -> Result<bool, Error> {
    if fiber::switch_blocked() {
        // PHP forbids starting a fiber here (inside a destructor, say):
        // the coroutine starts on the loop's next round instead.
        event_loop::spawn(async move {
            let _ = run(cid, 0);
        });
        return Ok(false);
    }
    // One borrow: the hand-off, the context and the running stack.
    let ctx = with_s(|s| {
        let mut s = s.borrow_mut();
        let ctx = s.coros.get(&cid)?;
        set_handoff(cid, payload, body);
        push_in(&mut s, cid);
        Some(ctx)
    });
    let Some(ctx) = ctx else {
        return Err(Error::Fiber);
    };
    // A coroutine starting has no output stack of its own yet.
    switch_into(cid, None, ctx);
    Ok(true)
}

/// Switches into `ctx` (coroutine `cid`) and deals with how it came back:
/// true when its body ended.
#[inline(always)]
fn enter(cid: Cid, ctx: Ctx) -> bool {
    match ctx.resume() {
        Outcome::Suspended => false,
        Outcome::Finished { dispose: false } => true,
        Outcome::Finished { dispose: true } => {
            ctx.destroy(true);
            true
        }
        Outcome::Bailout => bailed_out(cid, ctx),
    }
}

/// A fatal error the body's own boundary did not catch: the coroutine is
/// gone, the bailout goes on here.
#[cold]
fn bailed_out(cid: Cid, ctx: Ctx) -> ! {
    with_s(|s| {
        let mut s = s.borrow_mut();
        pop_in(&mut s, cid);
        s.coros.remove(&cid);
    });
    ctx.forget(true);
    // SAFETY: PHP's bailout, to the innermost zend_try of this side.
    unsafe { ext_php_rs::zend::bailout() };
}

/// Switches into coroutine `cid` (on `ctx`, already pushed on the running
/// stack) with `cid`'s own output buffers (`own`, taken out of its entry
/// by the caller) in place, and the switcher's back afterwards; `cid` is
/// off the running stack when this returns.
fn switch_into(cid: Cid, own: Option<Box<output::OutputGlobals>>, ctx: Ctx) {
    switch_into_inline(cid, own, ctx);
}

/// `switch_into`, inlined into `start` (once per request: the call's
/// register saves cost more than the copy of its code).
#[inline(always)]
fn switch_into_inline(cid: Cid, own: Option<Box<output::OutputGlobals>>, ctx: Ctx) {
    mark_switch();
    let outer = output::put_aside();
    if let Some(own) = own {
        output::put(*own);
    }
    let finished = enter(cid, ctx);
    // Back in the switcher: whatever runs now is a new turn.
    mark_switch();
    // A body that ended left the table and the running stack in `run_one`
    // (nothing to borrow the scheduler for here); else one borrow: off the
    // running stack, and still there?
    let alive = if finished && current() != cid {
        false
    } else {
        with_s(|s| {
            let mut s = s.borrow_mut();
            pop_in(&mut s, cid);
            !finished && s.coros.contains_key(&cid)
        })
    };
    // Usually the coroutine never made a handler stack: nothing to keep
    // or end, and only a few words of the switcher's state to put back.
    let untouched = output::untouched();
    if !untouched {
        if alive {
            let own = output::take();
            if own.is_some() {
                with_s(|s| {
                    if let Some(c) = s.borrow_mut().coro_mut(cid) {
                        c.output = own;
                    }
                });
            }
        } else {
            output::end_all();
        }
    }
    output::put_back(outer, untouched);
}

/// The running coroutine (the running stack's top, -1 for none), kept
/// in a process-wide atomic so `current()` (called dozens of times per
/// request by the stream hooks) is one load. Coroutines run only on the
/// PHP thread (NTS).
static CURRENT: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(-1);

#[inline]
fn sync_current(s: &Sched) {
    CURRENT.store(
        s.stack.last().copied().unwrap_or(-1),
        std::sync::atomic::Ordering::Relaxed,
    );
}

#[inline]
fn push_in(s: &mut Sched, cid: Cid) {
    s.stack.push(cid);
    // The new top, known without reading it back.
    CURRENT.store(cid, std::sync::atomic::Ordering::Relaxed);
}

#[inline]
fn pop_in(s: &mut Sched, cid: Cid) {
    pop_stack(s, cid);
    sync_current(s);
}

#[inline]
fn pop_stack(s: &mut Sched, cid: Cid) {
    if s.stack.last() == Some(&cid) {
        s.stack.pop();
    } else if let Some(pos) = s.stack.iter().rposition(|c| *c == cid) {
        s.stack.remove(pos);
    }
}

/// The body of a coroutine on context `me` (`context::serve`'s): runs
/// the handed-off cid to its end; true when `me` went back to the pool.
#[inline]
fn run_one(me: Ctx) -> bool {
    let Some((cid, payload, body)) = take_handoff() else {
        return true_if_pooled(me);
    };
    if let Some(body) = body {
        body(cid, payload);
    }
    finish_one(me, cid)
}

/// Coroutine `cid`'s body on `me` ended (returned, or bailed out and was
/// rescued: `context::trampoline`): it leaves the table and the running
/// stack; true when `me` went back to the pool.
#[inline(always)]
fn finish_one(me: Ctx, cid: Cid) -> bool {
    if shutting_down() {
        with_s(|s| {
            let mut s = s.borrow_mut();
            pop_in(&mut s, cid);
            s.coros.remove(&cid)
        });
        return false;
    }
    // `finish` and `true_if_pooled` in one borrow, and off the running
    // stack here (the resumer's `switch_into` then has nothing to do).
    preempt::forget(cid);
    let (joined, pooled) = with_s(
        #[inline(always)]
        |s| {
            let mut s = s.borrow_mut();
            pop_in(&mut s, cid);
            s.coros.remove(&cid);
            let pooled = s.idle.len() < POOL_MAX && !shutting_down();
            if pooled {
                s.idle.push(me);
            }
            (!s.join_waiters.is_empty(), pooled)
        },
    );
    if joined {
        // Rare: somebody joins (the waiters are taken in a borrow of
        // their own, out of the common path).
        wake_joiners(with_s(|s| std::mem::take(&mut s.borrow_mut().join_waiters)));
    } else {
        event_loop::wake();
    }
    pooled
}

/// Puts `me` back in the pool if there is room.
fn true_if_pooled(me: Ctx) -> bool {
    with_s(|s| {
        let mut s = s.borrow_mut();
        if s.idle.len() < POOL_MAX && !shutting_down() {
            s.idle.push(me);
            true
        } else {
            false
        }
    })
}

/// After a coroutine ended: `joiners` wait in `join` for any to end.
fn wake_joiners(joiners: Vec<Cid>) {
    if !joiners.is_empty() {
        // As Swoole: joiners resume from the loop (a deferred callback queued
        // before may cancel them first).
        event_loop::spawn(async move {
            // Two turns: a deferred callback's task, queued just before,
            // takes one turn before it runs.
            tokio::task::yield_now().await;
            tokio::task::yield_now().await;
            for j in joiners {
                resume_kind(j, WaitKind::Join, Wake::Resumed);
            }
        });
    }
    event_loop::wake();
}

/// Suspends the running coroutine until `resume` (or `timeout`).
pub fn wait(kind: WaitKind, timeout: Option<Duration>) -> Result<Wake, Error> {
    let cid = current();
    if cid < 0 {
        return Err(Error::NotInCoroutine);
    }
    if fiber::switch_blocked() {
        // Suspending would fail (and leave PHP's FiberError pending).
        return Err(Error::SwitchBlocked);
    }
    wait_cid(cid, kind, timeout).map(|(wake, _)| wake)
}

/// `wait` for a caller that has checked `cid` is the running coroutine and
/// may switch; also answers whether the wait was canceled (`is_canceled`).
pub(crate) fn wait_cid(
    cid: Cid,
    kind: WaitKind,
    timeout: Option<Duration>,
) -> Result<(Wake, bool), Error> {
    if shutting_down() {
        // Unwinding (a `finally` that waits): no more switching.
        context::throw_unwind();
        return Err(Error::Fiber);
    }
    let found = with_s(|s| {
        let mut s = s.borrow_mut();
        s.seq += 1;
        let seq = s.seq;
        let c = s.coro_mut(cid)?;
        c.waiting = Some((kind, seq));
        c.wake = Wake::Resumed;
        c.canceled = false;
        Some((seq, c.ctx?))
    });
    let Some((seq, ctx)) = found else {
        return Err(Error::Fiber);
    };
    let timer = timeout.map(|d| {
        let at = deadline(d);
        event_loop::spawn(async move {
            tokio::time::sleep_until(at).await;
            let still = with_s(|s| {
                s.borrow()
                    .coro(cid)
                    .is_some_and(|c| c.waiting.is_some_and(|(_, q)| q == seq))
            });
            if still {
                resume_with(cid, Wake::Timeout);
            }
        })
    });
    // The resumer (`run`/`resume_with`) pushed this cid and pops it when
    // the switch returns, so the stack needs no change here.
    ctx.suspend();
    if let Some(t) = timer {
        t.abort();
    }
    if ctx.is_unwinding() {
        // Request shutdown resumed us only to unwind (as PHP destroys a
        // suspended `\Fiber`): `finally` blocks run, nothing else.
        context::throw_unwind();
        return Err(Error::Fiber);
    }
    let (wake, canceled, owed) = with_s(|s| {
        let mut s = s.borrow_mut();
        match s.coro_mut(cid) {
            Some(c) => {
                c.waiting = None;
                (c.wake, c.canceled, std::mem::take(&mut c.owed))
            }
            None => (Wake::Resumed, false, 0),
        }
    });
    if owed != 0 {
        if let Some(hook) = THROW_HOOK.get() {
            hook(owed);
        }
    }
    Ok((wake, canceled))
}

/// What throws the exception a coroutine is owed (`throw_into`), on its own
/// stack as its wait returns; its argument is the caller's kind.
static THROW_HOOK: std::sync::OnceLock<fn(u8)> = std::sync::OnceLock::new();

/// Sets the throw hook (once, at startup).
pub fn set_throw_hook(hook: fn(u8)) {
    let _ = THROW_HOOK.set(hook);
}

/// Why `throw_into` refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThrowError {
    NotExists,
    /// The same kind is already owed.
    AlreadyOwed,
}

/// Owes `cid` an exception of `kind` (non-zero; the throw hook's to
/// interpret) and cancels its wait, if it is in one; the exception is
/// thrown as that wait (or its next one) returns. Swoole's
/// `Coroutine::cancel($cid, true)` and `Coroutine::setTimeLimit()`.
pub fn throw_into(cid: Cid, kind: u8) -> Result<(), ThrowError> {
    if cid == current() || !exists(cid) {
        return Err(ThrowError::NotExists);
    }
    let was = with_s(|s| {
        s.borrow_mut()
            .coro_mut(cid)
            .map(|c| std::mem::replace(&mut c.owed, kind))
    });
    if was == Some(kind) {
        return Err(ThrowError::AlreadyOwed);
    }
    // Owed even when its wait cannot be canceled: thrown at the next one.
    let _ = cancel(cid);
    Ok(())
}

/// Resumes `cid` only if it waits for `kind` (e.g. `Coroutine::resume()`
/// only continues a `Coroutine::yield()`).
pub fn resume_kind(cid: Cid, kind: WaitKind, wake: Wake) -> bool {
    resume_if(cid, Some(kind), wake)
}

fn resume_with(cid: Cid, wake: Wake) -> bool {
    resume_if(cid, None, wake)
}

/// Resumes `cid` if it waits (for `kind`, when given).
fn resume_if(cid: Cid, kind: Option<WaitKind>, wake: Wake) -> bool {
    // After a fatal error the worker runs no more PHP (`halt`): a waiting
    // coroutine stays where it is and its request gets the drain's answer
    // (503), not a second failure in a heap the fatal error left behind.
    if shutting_down() || crate::engine::worker::halt::poisoned() {
        return false;
    }
    let blocked = fiber::switch_blocked();
    if let Some(kind) = kind {
        if blocked && !is_waiting(cid, kind) {
            return false;
        }
    }
    if blocked {
        // PHP forbids switching fibers here (inside a destructor, say):
        // resume from the loop's next round instead.
        let ok = with_s(|s| s.borrow().coro(cid).is_some_and(|c| c.waiting.is_some()));
        if ok {
            event_loop::spawn(async move {
                resume_with(cid, wake);
            });
        }
        return ok;
    }
    // One borrow: the wait checked and cleared, the fiber, the coroutine's
    // output stack, and `cid` pushed on the running stack.
    let found = with_s(|s| {
        let mut s = s.borrow_mut();
        let c = s.coro_mut(cid)?;
        let (k, _) = c.waiting?;
        if kind.is_some_and(|want| want != k) {
            return None;
        }
        let ctx = c.ctx?;
        c.waiting = None;
        c.wake = wake;
        let own = c.output.take();
        push_in(&mut s, cid);
        Some((ctx, own))
    });
    let Some((ctx, own)) = found else {
        return false;
    };
    event_loop::note_activity();
    switch_into(cid, own, ctx);
    true
}

/// A cancel hook (see `set_cancel_hook`).
pub type CancelHook = Box<dyn Fn()>;

thread_local! {
    /// How to end the I/O wait of a coroutine early (`Coroutine::cancel()`):
    /// set by the socket layer around each wait.
    static CANCEL_HOOKS: Box<RefCell<CidMap<CancelHook>>> = Box::new(RefCell::new(CidMap::default()));
}

/// Installs (`Some`) or removes (`None`) the cancel hook of `cid`'s I/O wait.
pub fn set_cancel_hook(cid: Cid, hook: Option<CancelHook>) {
    CANCEL_HOOKS.with(|h| {
        let mut h = h.borrow_mut();
        match hook {
            Some(f) => {
                h.insert(cid, f);
            }
            None => {
                h.remove(&cid);
            }
        }
    });
}

/// Why `cancel` refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelError {
    NotExists,
    /// The running coroutine, or one that is not waiting.
    CannotCancel,
}

/// `Coroutine::cancel($cid)`: ends `cid`'s current wait at once (an I/O
/// wait fails with `ECANCELED`, a sleep/channel/join wait as if it timed
/// out) and marks it canceled.
pub fn cancel(cid: Cid) -> Result<(), CancelError> {
    if !exists(cid) {
        return Err(CancelError::NotExists);
    }
    if cid == current() {
        return Err(CancelError::CannotCancel);
    }
    let kind = with_s(|s| s.borrow().coro(cid).and_then(|c| c.waiting.map(|(k, _)| k)));
    let Some(kind) = kind else {
        return Err(CancelError::CannotCancel);
    };
    with_s(|s| {
        if let Some(c) = s.borrow_mut().coro_mut(cid) {
            c.canceled = true;
        }
    });
    if kind == WaitKind::Io {
        let hooked = CANCEL_HOOKS.with(|h| h.borrow_mut().remove(&cid));
        if let Some(f) = hooked {
            f();
            return Ok(());
        }
    }
    resume_with(cid, Wake::Timeout);
    // `resume_with` cleared the wait; the flag stays for `isCanceled()`.
    with_s(|s| {
        if let Some(c) = s.borrow_mut().coro_mut(cid) {
            c.canceled = true;
        }
    });
    Ok(())
}

/// True when the running coroutine's last wait was canceled.
pub fn is_canceled() -> bool {
    let cid = current();
    with_s(|s| s.borrow().coro(cid).is_some_and(|c| c.canceled))
}

/// The backtrace of coroutine `cid`, suspended in a wait or in a `go()`
/// (`Coroutine::getBackTrace`; the running one's is PHP's own).
pub fn trace(cid: Cid, options: i64, limit: i64) -> Option<ext_php_rs::types::Zval> {
    let ctx = with_s(|s| s.borrow().coro(cid).and_then(|c| c.ctx))?;
    ctx.trace(options, limit)
}

/// When a wait of `d` starting now ends. Taken at the call, not in the
/// timer task: the task first runs when the loop next gets to it, which
/// after a burst of `go()`s can be long after the coroutine went to sleep
/// (100,000 sleeping coroutines all woke ~1 s late before).
fn deadline(d: Duration) -> tokio::time::Instant {
    let now = tokio::time::Instant::now();
    // tokio's own "far future" for durations that overflow.
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(86_400 * 365 * 30))
}

/// `Co::sleep()`: suspends the running coroutine for `d`.
pub fn sleep(d: Duration) -> Result<(), Error> {
    let cid = current();
    if cid < 0 {
        return Err(Error::NotInCoroutine);
    }
    if fiber::switch_blocked() {
        return Err(Error::SwitchBlocked);
    }
    let seq_before = with_s(|s| s.borrow().seq);
    let at = deadline(d);
    let task = event_loop::spawn(async move {
        tokio::time::sleep_until(at).await;
        // Only the wait this sleep started (seq_before + 1).
        let ours = with_s(|s| {
            s.borrow().coro(cid).is_some_and(
                |c| matches!(c.waiting, Some((WaitKind::Sleep, q)) if q == seq_before + 1),
            )
        });
        if ours {
            resume_with(cid, Wake::Resumed);
        }
    });
    let r = wait(WaitKind::Sleep, None).map(|_| ());
    // A canceled sleep must not keep the loop alive until its deadline.
    // (A sleep that ran out was resumed by that very task, which ends now:
    // nothing to abort.)
    if r.is_err() || is_canceled() {
        task.abort();
    }
    r
}

/// `Coroutine::join()`: waits until every cid in `cids` has ended.
pub fn join(cids: &[Cid], timeout: Option<Duration>) -> Result<bool, Error> {
    let me = current();
    if me < 0 {
        return Err(Error::NotInCoroutine);
    }
    let deadline = timeout.map(|t| Instant::now() + t);
    let set: HashSet<Cid> = cids.iter().copied().collect();
    loop {
        if !set.iter().any(|c| exists(*c)) {
            return Ok(true);
        }
        let left = match deadline {
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Ok(false);
                }
                Some(left)
            }
            None => None,
        };
        with_s(|s| s.borrow_mut().join_waiters.push(me));
        if wait(WaitKind::Join, left)? == Wake::Timeout {
            with_s(|s| s.borrow_mut().join_waiters.retain(|c| *c != me));
            if is_canceled() || set.iter().any(|c| exists(*c)) {
                return Ok(false);
            }
        }
    }
}

/// Runs the event loop until no task is left. Coroutines still alive then
/// can never wake (see `newly_stuck`).
pub fn run_loop() {
    event_loop::run_until_idle(|| event_loop::live_tasks() == 0);
}

/// Coroutines alive with nothing left that could wake them, not reported
/// before; marks them reported.
pub fn newly_stuck() -> Vec<Cid> {
    with_s(|s| {
        let mut s = s.borrow_mut();
        let alive: Vec<Cid> = s.coros.keys().collect();
        alive
            .into_iter()
            .filter(|cid| s.stuck.insert(*cid))
            .collect()
    })
}

/// PHP is destroying fibers (request shutdown): stop scheduling.
pub fn set_unwinding() {
    set_shutting_down();
}

/// The head of Swoole's deadlock report (printed to stdout), and the rule
/// that ends it.
pub fn deadlock_report(n: usize) -> (String, String) {
    let rule = "=".repeat(64 + n.to_string().len());
    (
        format!(
            "\n {rule}\n  [FATAL ERROR]: all coroutines (count: {n}) are asleep - deadlock!\n {rule}\n"
        ),
        format!("\n {rule}\n"),
    )
}

/// Request shutdown: unwinds every suspended coroutine (its `finally`
/// blocks run, its values are released, as PHP does for a suspended
/// `\Fiber`), then frees every context. After a fatal error (an unclean
/// shutdown) nothing is run: the contexts are only forgotten.
pub fn shutdown() {
    // SAFETY: the PHP thread; compiler_globals is PHP's (NTS) global.
    let clean = unsafe { !ext_php_rs::ffi::compiler_globals.unclean_shutdown };
    set_shutting_down();
    if clean {
        let mut waiting: Vec<Cid> = with_s(|s| {
            let s = s.borrow();
            s.coros
                .keys()
                .filter(|cid| s.coro(*cid).is_some_and(|c| c.waiting.is_some()))
                .collect()
        });
        waiting.sort_unstable();
        for cid in waiting {
            let found = with_s(|s| {
                let mut s = s.borrow_mut();
                let c = s.coro_mut(cid)?;
                let ctx = c.ctx?;
                c.waiting = None;
                let own = c.output.take();
                push_in(&mut s, cid);
                Some((ctx, own))
            });
            if let Some((ctx, own)) = found {
                ctx.set_unwind();
                switch_into(cid, own, ctx);
            }
        }
    }
    let idle = with_s(|s| std::mem::take(&mut s.borrow_mut().idle));
    for ctx in idle {
        if clean {
            ctx.destroy(false);
        } else {
            ctx.forget(false);
        }
    }
    // Coroutines still here could not be unwound: their contexts are only
    // forgotten (PHP frees its own memory at the end of the request).
    let coros = with_s(|s| std::mem::take(&mut s.borrow_mut().coros));
    for ctx in coros.into_values() {
        // Its record (a suspended output stack too) goes with it.
        ctx.forget(false);
    }
}
