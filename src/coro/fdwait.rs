//! Waiting, from a coroutine, until a raw fd someone else owns (a PHP
//! stream's socket) is readable or writable, with a timeout: the runtime
//! hooks' one readiness primitive.
//!
//! Each fd is registered once with the event loop (a tokio `AsyncFd` over
//! the bare number, never closing it) and kept in a per-process table until
//! its owner calls `forget` just before closing it (the stream hooks do, in
//! their close). The table entry remembers the fd's inode and the process:
//! a registration inherited through fork() (made on the parent's loop) is
//! noticed and leaked rather than deregistered (deregistering would remove
//! the parent's registration from the shared epoll set). The inode is
//! checked when the fd is registered, not on every wait (an fstat per wait
//! was 2 system calls per Redis command): a number closed without `forget`
//! and reused would keep a dead registration, so every user must call it.
//!
//! `io`, the hot path (one hooked recv/send that saw EAGAIN), runs without a
//! loop task: the coroutine polls the fd's readiness itself with a waker that
//! names it, suspends, and a single dispatcher task resumes the coroutines
//! whose wakers the loop fired. The timeout is one reusable timer per fd and
//! direction, pushed forward on each wait (no timer-wheel insert when the new
//! deadline is later). `wait`/`wait_busy` (connect, accept, TLS) still run a
//! loop task per wait.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Mutex;
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;
use tokio::time::Sleep;

use super::{io, Cid, Error, WaitKind, Wake};
use crate::engine::rt::event_loop;

/// What to wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Read,
    Write,
}

/// A borrowed fd number: dropping it closes nothing.
struct Borrowed(RawFd);

impl AsRawFd for Borrowed {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

struct Entry {
    afd: Rc<AsyncFd<Borrowed>>,
    ino: (u64, u64, u32),
    /// `io`'s state for this fd, shared by its waits.
    fast: Rc<Fast>,
}

/// Per fd: the coroutine polling each direction now (0: none; tokio's
/// poll-style readiness keeps one waker per direction, so a second waiter
/// takes the task path) and each direction's reusable timeout timer.
#[derive(Default)]
struct Fast {
    reader: Cell<Cid>,
    writer: Cell<Cid>,
    read_timer: Cell<Option<Pin<Box<Sleep>>>>,
    write_timer: Cell<Option<Pin<Box<Sleep>>>>,
}

type FdMap<V> = HashMap<RawFd, V, crate::engine::hash::IntBuild>;

thread_local! {
    static TABLE: Box<RefCell<FdMap<Entry>>> = Box::new(RefCell::new(FdMap::default()));
    /// Whether the dispatcher task of `io` runs on this thread's loop.
    static DISPATCHER: Cell<bool> = const { Cell::new(false) };
}

/// (device, inode, process) of `fd`, or `None` when it is not open. The
/// process id makes a registration inherited through fork() (made on the
/// parent's loop) stale in the child.
fn identity(fd: RawFd) -> Option<(u64, u64, u32)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `st` is a valid out-pointer for fstat; a bad fd only fails.
    let r = unsafe { libc::fstat(fd, st.as_mut_ptr()) };
    if r != 0 {
        return None;
    }
    // SAFETY: fstat succeeded and filled `st`.
    let st = unsafe { st.assume_init() };
    Some((st.st_dev, st.st_ino, my_pid()))
}

/// True when `fd` is ready for `want` now (an error or hang-up counts as
/// ready: the operation will report it without blocking).
pub fn ready_now(fd: RawFd, want: Want) -> bool {
    let events = match want {
        Want::Read => libc::POLLIN,
        Want::Write => libc::POLLOUT,
    };
    let mut p = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd, zero timeout.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n != 0
}

/// This process's id, cached (refreshed in a forked child).
fn my_pid() -> u32 {
    crate::engine::shared::shm_lock::my_pid() as u32
}

/// The registration of `fd` (with its `io` state), made on first use
/// (inside a loop task, where tokio's reactor is reachable).
fn registration_full(fd: RawFd) -> Option<(Rc<AsyncFd<Borrowed>>, Rc<Fast>)> {
    let pid = my_pid();
    let cached = TABLE.with(|t| {
        let mut t = t.borrow_mut();
        match t.get(&fd) {
            Some(e) if e.ino.2 == pid => Some((Rc::clone(&e.afd), Rc::clone(&e.fast))),
            Some(_) => {
                // Made by the parent before a fork: see the module comment.
                if let Some(stale) = t.remove(&fd) {
                    std::mem::forget(stale);
                }
                None
            }
            None => None,
        }
    });
    if cached.is_some() {
        return cached;
    }
    let ino = identity(fd)?;
    // SAFETY: `fd` is open (fstat above) and its owner calls `forget`
    // before closing it (module comment), so the registration never
    // outlives the file it was made for in this process.
    let afd = unsafe {
        AsyncFd::register_with_interest(Borrowed(fd), Interest::READABLE | Interest::WRITABLE)
    }
    .ok()?;
    let afd = Rc::new(afd);
    let fast = Rc::new(Fast::default());
    TABLE.with(|t| {
        t.borrow_mut().insert(
            fd,
            Entry {
                afd: Rc::clone(&afd),
                ino,
                fast: Rc::clone(&fast),
            },
        )
    });
    Some((afd, fast))
}

fn registration(fd: RawFd) -> Option<Rc<AsyncFd<Borrowed>>> {
    registration_full(fd).map(|(afd, _)| afd)
}

/// Drops `fd`'s registration; call it before the fd is closed.
pub fn forget(fd: RawFd) {
    let e = TABLE.with(|t| t.borrow_mut().remove(&fd));
    drop(e);
}

/// Waits until `fd` is ready for `want`, suspending only the current
/// coroutine. `Ok(true)` when ready, `Ok(false)` when `timeout` ran out,
/// `Err(NotInCoroutine)` outside a coroutine. An fd the loop cannot watch
/// (a regular file) reports ready at once.
pub fn wait(fd: RawFd, want: Want, timeout: Option<Duration>) -> Result<bool, Error> {
    if ready_now(fd, want) {
        return Ok(true);
    }
    wait_busy(fd, want, timeout)
}

/// `wait` for a caller that has just seen EAGAIN on `fd` (no zero-timeout
/// check first).
pub fn wait_busy(fd: RawFd, want: Want, timeout: Option<Duration>) -> Result<bool, Error> {
    if timeout.is_some_and(|t| t.is_zero()) {
        return Ok(false);
    }
    io::run(async move {
        let Some(afd) = registration(fd) else {
            return true;
        };
        let ready = async {
            loop {
                let guard = match want {
                    Want::Read => afd.readable().await,
                    Want::Write => afd.writable().await,
                };
                match guard {
                    Ok(mut g) => {
                        if ready_now(fd, want) {
                            return true;
                        }
                        g.clear_ready();
                    }
                    Err(_) => return true,
                }
            }
        };
        match timeout {
            Some(t) => tokio::time::timeout(t, ready).await.unwrap_or(false),
            None => ready.await,
        }
    })
}

/// Sets a flag to false when dropped: tells a loop task that the
/// coroutine it works for has stopped waiting (see `io`).
struct Alive(Rc<Cell<bool>>);

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// `io` through a loop task: the loop runs `op` each time `fd` is ready.
fn io_task<R, F>(
    fd: RawFd,
    want: Want,
    timeout: Option<Duration>,
    mut op: F,
) -> Result<Option<std::io::Result<R>>, Error>
where
    R: 'static,
    F: FnMut() -> std::io::Result<R> + 'static,
{
    let alive = Rc::new(Cell::new(true));
    let _guard = Alive(Rc::clone(&alive));
    io::run(async move {
        let interest = match want {
            Want::Read => Interest::READABLE,
            Want::Write => Interest::WRITABLE,
        };
        let Some(afd) = registration(fd) else {
            return Some(op());
        };
        let fut = afd.async_io(interest, |_| {
            if !alive.get() {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            op()
        });
        match timeout {
            Some(t) => tokio::time::timeout(t, fut).await.ok(),
            None => Some(fut.await),
        }
    })
}

/// Runs `op` (a non-blocking recv/send/accept on `fd`) each time `fd` is
/// ready for `want`, until it answers something other than `WouldBlock`,
/// suspending only the current coroutine; tokio clears its cached readiness
/// on every `WouldBlock`, so no extra `poll(2)` is made. `Ok(None)` when
/// `timeout` ran out first. `op` runs only inside this call (never once it
/// has returned), so it may use the caller's buffers.
///
/// Inside a loop task (the usual case: a request's coroutine) the coroutine
/// polls the readiness itself (module comment); elsewhere, or with a second
/// waiter on the same fd and direction, a loop task does the work.
pub fn io<R, F>(
    fd: RawFd,
    want: Want,
    timeout: Option<Duration>,
    mut op: F,
) -> Result<Option<std::io::Result<R>>, Error>
where
    R: 'static,
    F: FnMut() -> std::io::Result<R> + 'static,
{
    let cid = super::current();
    if cid < 0 {
        return Err(Error::NotInCoroutine);
    }
    if super::fiber::switch_blocked() {
        return Err(Error::SwitchBlocked);
    }
    // A loop task is being polled: the runtime (reactor, timers) is
    // reachable and the dispatcher can be spawned on its loop.
    if tokio::task::try_id().is_none() {
        return io_task(fd, want, timeout, op);
    }
    let Some((afd, fast)) = registration_full(fd) else {
        return Ok(Some(op()));
    };
    let slot = match want {
        Want::Read => &fast.reader,
        Want::Write => &fast.writer,
    };
    if slot.get() != 0 {
        return io_task(fd, want, timeout, op);
    }
    ensure_dispatcher();
    slot.set(cid);
    let _clear = ClearOnDrop(slot);
    let timer_slot = match want {
        Want::Read => &fast.read_timer,
        Want::Write => &fast.write_timer,
    };
    let mut timer = None;
    let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
    let waker = coro_waker(cid);
    let mut cx = Context::from_waker(&waker);
    let _hold = event_loop::hold();
    let out = loop {
        // Unconstrained: a coroutine's poll must not spend (or be refused
        // by) the budget of whichever loop task resumed it.
        let poll = std::future::poll_fn(|cx| match want {
            Want::Read => afd.poll_read_ready(cx),
            Want::Write => afd.poll_write_ready(cx),
        });
        let ready = std::pin::pin!(tokio::task::unconstrained(poll)).poll(&mut cx);
        match ready {
            Poll::Ready(Ok(mut guard)) => match guard.try_io(|_| op()) {
                Ok(r) => break Ok(Some(r)),
                Err(_) => continue,
            },
            Poll::Ready(Err(e)) => break Ok(Some(Err(e))),
            Poll::Pending => {}
        }
        if let Some(d) = deadline {
            let t = timer.get_or_insert_with(|| {
                let mut t = timer_slot
                    .take()
                    .unwrap_or_else(|| Box::pin(tokio::time::sleep_until(d)));
                t.as_mut().reset(d);
                t
            });
            if t.as_mut().poll(&mut cx).is_ready() {
                break Ok(None);
            }
        }
        // `cid` is running and may switch (checked above).
        match super::wait_cid(cid, WaitKind::Io, None) {
            Err(e) => break Err(e),
            // `Coroutine::cancel()`.
            Ok((_, true)) => break Err(Error::Fiber),
            Ok(_) => {}
        }
    };
    if let Some(t) = timer {
        timer_slot.set(Some(t));
    }
    out
}

/// Clears the polling coroutine of an fd direction.
struct ClearOnDrop<'a>(&'a Cell<Cid>);

impl Drop for ClearOnDrop<'_> {
    fn drop(&mut self) {
        self.0.set(0);
    }
}

/// Coroutines whose wakers fired, and the dispatcher task's waker while it
/// is parked. A `Mutex` because a `Waker` must be `Send`; only the loop's
/// thread takes it, so it is never contended.
struct Ready {
    cids: Vec<Cid>,
    waker: Option<Waker>,
}

static READY: Mutex<Ready> = Mutex::new(Ready {
    cids: Vec::new(),
    waker: None,
});

fn ready_list() -> std::sync::MutexGuard<'static, Ready> {
    READY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A waker that queues coroutine `cid` for the dispatcher (the data is the
/// cid itself: nothing to allocate, clone or free).
fn coro_waker(cid: Cid) -> Waker {
    // SAFETY: the vtable's functions treat the data as a plain integer and
    // never dereference it; cloning and dropping are trivially correct.
    unsafe { Waker::from_raw(RawWaker::new(cid as usize as *const (), &VTABLE)) }
}

static VTABLE: RawWakerVTable = RawWakerVTable::new(vt_clone, vt_wake, vt_wake, vt_drop);

fn vt_clone(data: *const ()) -> RawWaker {
    RawWaker::new(data, &VTABLE)
}

fn vt_wake(data: *const ()) {
    let waker = {
        let mut r = ready_list();
        r.cids.push(data as usize as Cid);
        r.waker.take()
    };
    if let Some(w) = waker {
        w.wake();
    }
}

fn vt_drop(_: *const ()) {}

/// Spawns the dispatcher on this thread's loop once.
fn ensure_dispatcher() {
    if DISPATCHER.with(|d| d.replace(true)) {
        return;
    }
    event_loop::spawn_untracked(Dispatch { batch: Vec::new() });
}

/// The loop task that resumes coroutines whose `io` wakers fired.
struct Dispatch {
    batch: Vec<Cid>,
}

impl Future for Dispatch {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        {
            let mut r = ready_list();
            if r.cids.is_empty() {
                if !r.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    r.waker = Some(cx.waker().clone());
                }
                return Poll::Pending;
            }
            std::mem::swap(&mut r.cids, &mut this.batch);
        }
        for cid in this.batch.drain(..) {
            super::resume_kind(cid, WaitKind::Io, Wake::Resumed);
        }
        // Wakers fired by the coroutines just resumed: the next turn.
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
