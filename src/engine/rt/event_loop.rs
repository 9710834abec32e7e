//! The process's one `LocalSet`: timers, coroutine wake-ups and (in a worker)
//! connections are all tasks on it.
//!
//! A worker drives it with its own runtime (`worker::run`); a plain CLI script
//! drives it from `Swoole\Event::wait()` / `Co\run()` (`run_until_idle`). Tasks
//! can be queued before the loop runs: `spawn` never needs a runtime context.
//! No runtime and no thread exist until a loop runs, so a script may still fork.

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;
use tokio::task::{JoinHandle, LocalSet};

thread_local! {
    static LOCAL: Box<LocalSet> = Box::new(LocalSet::new());
    /// Tasks spawned through `spawn` that have not finished.
    static LIVE: Cell<usize> = const { Cell::new(0) };
    /// Fires whenever a tracked task ends or `wake()` is called.
    static CHANGED: Rc<Notify> = Rc::new(Notify::new());
    /// Set by `Swoole\Event::exit()`.
    static EXIT: Cell<bool> = const { Cell::new(false) };
    static ACTIVITY_NOTIFY: Rc<Notify> = Rc::new(Notify::new());
}

/// Counts callbacks into user code (timers, defers, resumed coroutines):
/// one loop round ran something when it moved (`Event::cycle`). Process-wide
/// (no TLS lookup on every call into PHP): only the PHP thread calls PHP.
static ACTIVITY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// `next_round` futures waiting on `ACTIVITY_NOTIFY` (none, nearly always:
/// `note_activity` then skips the notify).
static ACTIVITY_WAITERS: AtomicUsize = AtomicUsize::new(0);

/// How many `run_until_idle` loops wait on `CHANGED` now (a worker's loop
/// never does: `wake` then skips the notify, a lock per task). One count
/// for the process, not per thread (static TLS is scarce in a dlopen()ed
/// extension, tools/tls-check.sh): only the PHP thread runs these loops,
/// and a count seen from another thread costs one needless notify at most.
static IDLE_WAITERS: AtomicUsize = AtomicUsize::new(0);

/// User code ran (called by the layers that call it).
#[inline]
pub fn note_activity() {
    // A load and a store, not a locked add: one thread writes it.
    ACTIVITY.store(
        ACTIVITY.load(Ordering::Relaxed).wrapping_add(1),
        Ordering::Relaxed,
    );
    if ACTIVITY_WAITERS.load(Ordering::Relaxed) != 0 {
        let _ = ACTIVITY_NOTIFY.try_with(|n| n.notify_waiters());
    }
}

/// How often `note_activity` was called.
pub fn activity() -> u64 {
    ACTIVITY.load(Ordering::Relaxed)
}

/// Resolves once `activity()` differs from `seen`, and every task that
/// became ready with it had its turn: the end of that loop round.
pub async fn next_round(seen: u64) {
    let n = ACTIVITY_NOTIFY.with(Rc::clone);
    while activity() == seen {
        // Registered (first poll) before anything else runs on this
        // thread, so a `note_activity` after the check wakes it.
        let wait = n.notified();
        ACTIVITY_WAITERS.fetch_add(1, Ordering::Relaxed);
        let _count = WaiterCount;
        wait.await;
    }
    tokio::task::yield_now().await;
}

/// Counts a `next_round` wait for as long as it lives (also when its
/// future is dropped mid-wait).
struct WaiterCount;

impl Drop for WaiterCount {
    fn drop(&mut self) {
        ACTIVITY_WAITERS.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Decrements the live-task count when the task ends or is aborted.
struct LiveGuard;

impl Drop for LiveGuard {
    fn drop(&mut self) {
        // `try_with`: at process exit the LocalSet (and its tasks) may be
        // dropped after these thread-locals are gone.
        let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(1)));
        wake();
    }
}

/// Queues a task on the process's loop.
pub fn spawn<F: Future + 'static>(fut: F) -> JoinHandle<F::Output> {
    LIVE.with(|l| l.set(l.get() + 1));
    let guard = LiveGuard;
    LOCAL.with(|local| {
        local.spawn_local(async move {
            let _guard = guard;
            fut.await
        })
    })
}

/// Queues a task that does not keep the loop alive (`Event::cycle`).
pub fn spawn_untracked<F: Future + 'static>(fut: F) -> JoinHandle<F::Output> {
    LOCAL.with(|local| local.spawn_local(fut))
}

/// Keeps the loop alive as a pending `spawn`ed task does, until dropped (a
/// coroutine waiting on the loop without a task of its own: `fdwait::io`).
pub struct Hold(());

pub fn hold() -> Hold {
    LIVE.with(|l| l.set(l.get() + 1));
    Hold(())
}

impl Drop for Hold {
    fn drop(&mut self) {
        drop(LiveGuard);
    }
}

/// Tasks queued through `spawn` that are still pending.
pub fn live_tasks() -> usize {
    LIVE.with(Cell::get)
}

/// Tells `run_until_idle` to look at its condition again.
#[inline]
pub fn wake() {
    if IDLE_WAITERS.load(Ordering::Relaxed) == 0 {
        return;
    }
    let _ = CHANGED.try_with(|n| n.notify_waiters());
}

/// `Swoole\Event::exit()`: the running `run_until_idle` returns soon.
pub fn request_exit() {
    EXIT.with(|e| e.set(true));
    wake();
}

/// Runs `fut` on the process's `LocalSet` with `rt`.
pub fn block_on<F: Future>(rt: &tokio::runtime::Runtime, fut: F) -> F::Output {
    LOCAL.with(|local| local.block_on(rt, fut))
}

/// [`block_on`], polling `fut` only when one of its own wakers fired. The
/// `LocalSet` polls the future it runs on every wake of any of its tasks;
/// a worker's main future (a select over its signals, its wake-up and
/// halt notifications) then polled three `Notified`s, each taking a lock,
/// twice per WebSocket message it relayed.
pub fn block_on_woken<F: Future>(rt: &tokio::runtime::Runtime, fut: F) -> F::Output {
    block_on(rt, WhenWoken::new(fut))
}

/// Whether a [`WhenWoken`] future's wakers fired, and whom to tell.
struct Gate {
    woken: std::sync::atomic::AtomicBool,
    parent: std::sync::Mutex<Option<std::task::Waker>>,
}

impl std::task::Wake for Gate {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        if let Ok(p) = self.parent.lock() {
            if let Some(w) = p.as_ref() {
                w.wake_by_ref();
            }
        }
    }
}

/// `F`, polled (with a waker of its own) only when that waker was woken
/// since its last poll, or on the first poll.
struct WhenWoken<F> {
    fut: std::pin::Pin<Box<F>>,
    gate: std::sync::Arc<Gate>,
    waker: std::task::Waker,
}

impl<F: Future> WhenWoken<F> {
    fn new(fut: F) -> Self {
        let gate = std::sync::Arc::new(Gate {
            woken: std::sync::atomic::AtomicBool::new(true),
            parent: std::sync::Mutex::new(None),
        });
        let waker = std::task::Waker::from(gate.clone());
        WhenWoken {
            fut: Box::pin(fut),
            gate,
            waker,
        }
    }
}

impl<F: Future> Future for WhenWoken<F> {
    type Output = F::Output;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let this = self.get_mut();
        // The parent's waker first, then the flag: a wake in between sets
        // the flag and reaches the new waker, so it is never lost.
        if let Ok(mut p) = this.gate.parent.lock() {
            if !p.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                *p = Some(cx.waker().clone());
            }
        }
        if !this.gate.woken.swap(false, Ordering::AcqRel) {
            return std::task::Poll::Pending;
        }
        this.fut
            .as_mut()
            .poll(&mut std::task::Context::from_waker(&this.waker))
    }
}

thread_local! {
    /// The runtime of a plain script's loop, built on first use. It is never
    /// dropped: tasks left on the `LocalSet` (after `Event::exit()`) hold
    /// timer handles that need it until the process ends.
    static SCRIPT_RT: Cell<Option<&'static tokio::runtime::Runtime>> = const { Cell::new(None) };
}

/// In a forked child: the parent's runtime (its epoll descriptor is shared
/// with the parent) is left alone; the next loop builds a runtime of its own.
pub fn forget_runtime() {
    SCRIPT_RT.with(|c| c.set(None));
}

fn script_runtime() -> Option<&'static tokio::runtime::Runtime> {
    if let Some(rt) = SCRIPT_RT.with(Cell::get) {
        return Some(rt);
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()?;
    let rt: &'static tokio::runtime::Runtime = Box::leak(Box::new(rt));
    SCRIPT_RT.with(|c| c.set(Some(rt)));
    Some(rt)
}

/// Runs the loop for at most `max` while it has tasks; false (at once) when
/// it has none.
pub fn run_for(max: std::time::Duration) -> bool {
    if live_tasks() == 0 {
        return false;
    }
    let deadline = std::time::Instant::now() + max;
    let alarm = spawn_untracked(async move {
        tokio::time::sleep_until(deadline.into()).await;
        wake();
    });
    let ran = run_until_idle(|| live_tasks() == 0 || std::time::Instant::now() >= deadline);
    alarm.abort();
    ran
}

/// Builds a current-thread runtime and runs the loop until `idle()` holds (or
/// `Event::exit()`); returns false if it could not build the runtime.
pub fn run_until_idle(idle: impl Fn() -> bool) -> bool {
    let Some(rt) = script_runtime() else {
        return false;
    };
    EXIT.with(|e| e.set(false));
    block_on(rt, async {
        loop {
            if EXIT.with(Cell::get) || idle() {
                // Tasks that are ready now (the `Event::cycle` callback of
                // this round) still get their turn before the loop ends.
                tokio::task::yield_now().await;
                if EXIT.with(Cell::get) || idle() {
                    break;
                }
            }
            let changed = CHANGED.with(Rc::clone);
            let notified = changed.notified();
            tokio::pin!(notified);
            // Counted before the condition is read, so a `wake` between the
            // read and the await still notifies.
            IDLE_WAITERS.fetch_add(1, Ordering::Relaxed);
            notified.as_mut().enable();
            if EXIT.with(Cell::get) || idle() {
                IDLE_WAITERS.fetch_sub(1, Ordering::Relaxed);
                break;
            }
            notified.await;
            IDLE_WAITERS.fetch_sub(1, Ordering::Relaxed);
        }
    });
    EXIT.with(|e| e.set(false));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn when_woken_skips_polls_for_other_tasks_and_still_wakes() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let polls = Rc::new(Cell::new(0u32));
        let n = Rc::new(Notify::new());
        let p = polls.clone();
        let n2 = n.clone();
        let out = block_on_woken(&rt, async move {
            // Another task wakes the loop 100 times, then our notify once.
            let busy = tokio::task::spawn_local(async move {
                for _ in 0..100 {
                    tokio::task::yield_now().await;
                }
                n2.notify_one();
            });
            let wait = n.notified();
            tokio::pin!(wait);
            std::future::poll_fn(|cx| {
                p.set(p.get() + 1);
                wait.as_mut().poll(cx)
            })
            .await;
            let _ = busy.await;
            7
        });
        assert_eq!(out, 7);
        assert!(polls.get() <= 3, "polled {} times", polls.get());
    }
}
