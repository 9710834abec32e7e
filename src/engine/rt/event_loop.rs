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
    /// Fires when the last tracked task ends or `wake()` is called.
    static CHANGED: Rc<Notify> = Rc::new(Notify::new());
    /// Set by `Swoole\Event::exit()`.
    static EXIT: Cell<bool> = const { Cell::new(false) };
    /// Inside the running `LocalSet`'s poll (`InLocal`): `spawn_untracked`
    /// may use `tokio::task::spawn_local`.
    static IN_LOCAL: Cell<bool> = const { Cell::new(false) };
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

/// `run_until_idle` loops whose condition reads `activity()`
/// (`Event::dispatch`, [`watch_activity`]): `note_activity` wakes them.
static ACTIVITY_IDLE: AtomicUsize = AtomicUsize::new(0);

/// The last tracked task ended since the loop last parked: `on_park` looks
/// whether the loop is idle now.
static IDLE_CHECK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The script runtime's park hook: tokio calls it when it has nothing left
/// to run, before it blocks in epoll_wait; a wake here makes it poll
/// `run_until_idle`'s future instead.
fn on_park() {
    if IDLE_CHECK.swap(false, Ordering::Relaxed) && LIVE.try_with(Cell::get).unwrap_or(0) == 0 {
        wake();
    }
}

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
    if ACTIVITY_IDLE.load(Ordering::Relaxed) != 0 {
        wake();
    }
}

/// While the guard lives, `note_activity` wakes `run_until_idle`, for a
/// condition that reads `activity()`.
pub fn watch_activity() -> ActivityWatch {
    ACTIVITY_IDLE.fetch_add(1, Ordering::Relaxed);
    ActivityWatch(())
}

pub struct ActivityWatch(());

impl Drop for ActivityWatch {
    fn drop(&mut self) {
        ACTIVITY_IDLE.fetch_sub(1, Ordering::Relaxed);
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
        let left = LIVE.try_with(|l| {
            let n = l.get().saturating_sub(1);
            l.set(n);
            n
        });
        // Only the last one's end can make `live_tasks() == 0` hold, and
        // often only for a moment: a coroutine's I/O wait holds the loop
        // (`hold`) until the data is in, then the coroutine runs on and
        // waits again. Waking the loop's own future there cost a second,
        // zero-timeout epoll_wait (and a poll of that future) per WebSocket
        // message in a `Co\run()` client. So the check waits until the loop
        // runs out of work (`on_park`). Other conditions (timers,
        // deadlines, `activity()`) wake the loop themselves.
        match left {
            Ok(0) => IDLE_CHECK.store(true, Ordering::Relaxed),
            Ok(_) => {}
            Err(_) => wake(),
        }
    }
}

/// Queues a task on the process's loop.
pub fn spawn<F: Future + 'static>(fut: F) -> JoinHandle<F::Output> {
    LIVE.with(|l| l.set(l.get() + 1));
    let guard = LiveGuard;
    spawn_untracked(async move {
        let _guard = guard;
        fut.await
    })
}

/// Queues a task that does not keep the loop alive (`Event::cycle`).
pub fn spawn_untracked<F: Future + 'static>(fut: F) -> JoinHandle<F::Output> {
    if IN_LOCAL.with(Cell::get) {
        // From a task (or the loop's own future) of the running LocalSet:
        // the free function queues it without waking the runtime, which
        // `LocalSet::spawn_local` does for a spawn from outside, at the
        // price of a zero-timeout epoll_wait and a poll of the loop's
        // future (once per coroutine I/O wait, each one a task).
        tokio::task::spawn_local(fut)
    } else {
        LOCAL.with(|local| local.spawn_local(fut))
    }
}

/// The running `LocalSet`'s poll, marked (`IN_LOCAL`) for its length: the
/// loop's own future and every task run inside it.
struct InLocal<F>(F);

impl<F: Future> Future for InLocal<F> {
    type Output = F::Output;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        struct Restore(bool);
        impl Drop for Restore {
            fn drop(&mut self) {
                IN_LOCAL.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(IN_LOCAL.with(|c| c.replace(true)));
        // SAFETY: structural pinning: the inner future is never moved out
        // of `self`, which stays pinned.
        unsafe { self.map_unchecked_mut(|s| &mut s.0) }.poll(cx)
    }
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
    // What `LocalSet::block_on` does, with the poll marked.
    LOCAL.with(|local| rt.block_on(InLocal(local.run_until(fut))))
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
        .on_thread_park(on_park)
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

    #[test]
    fn a_spawn_from_a_task_does_not_wake_the_loops_own_future() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let polls = Rc::new(Cell::new(0u32));
        let p = polls.clone();
        // A chain of 20 tasks, each spawned by the one before after a wait
        // on the driver (as a coroutine's I/O waits are), then the loop's
        // future ends.
        fn chain(left: u32, done: Rc<Notify>) {
            spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                if left == 0 {
                    done.notify_one();
                } else {
                    chain(left - 1, done);
                }
            });
        }
        let d = Rc::new(Notify::new());
        block_on(&rt, async move {
            let wait = d.notified();
            tokio::pin!(wait);
            chain(20, d.clone());
            std::future::poll_fn(|cx| {
                p.set(p.get() + 1);
                wait.as_mut().poll(cx)
            })
            .await;
        });
        // One poll per link is the timer's wake (the LocalSet polls its
        // future whenever it is woken from outside); `LocalSet::spawn_local`
        // woke it once more per spawn (44 polls).
        assert!(polls.get() <= 30, "polled {} times", polls.get());
        assert_eq!(live_tasks(), 0);
    }
}
