//! The timer hyper uses for `http_header_timeout`, made cheap per request.
//!
//! hyper arms a new sleep each time it starts waiting for a request head and
//! drops it as soon as the head is in: on a keep-alive connection, once per
//! request. With tokio's timer that is an allocation, a timer-wheel insertion
//! and a removal each time (about 800 instructions, 3% of a hello-world
//! request). Here a waiting sleep is a slot in one table per process (a lock,
//! no allocation once the table has grown), and one sweeper task sleeps until
//! the earliest deadline in the table and wakes the connections whose
//! deadline has passed. A sleep that is polled after its deadline is ready at
//! once, as with tokio's. The clock is tokio's (`tokio::time::Instant`), so
//! a paused test clock applies here too.
//!
//! hyper requires `Send + Sync` timers, hence a `Mutex` (never contended: a
//! worker runs its connections on one thread) rather than a thread-local.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use hyper::rt::{Sleep, Timer};
use tokio::sync::Notify;
use tokio::time::Instant;

/// `HeaderSleep::slot` when the sleep is not in the table.
const NO_SLOT: usize = usize::MAX;

struct Entry {
    deadline: Instant,
    /// Taken by the sweeper when it wakes the task (once per entry).
    waker: Option<Waker>,
}

struct Table {
    /// Waiting sleeps; `None` marks a free slot (listed in `free`).
    slots: Vec<Option<Entry>>,
    free: Vec<usize>,
    /// When the sweeper looks next; `None` while no sweeper task is alive.
    /// Invariant: not later than any deadline in the table.
    sweep_at: Option<Instant>,
}

static TABLE: Mutex<Table> = Mutex::new(Table {
    slots: Vec::new(),
    free: Vec::new(),
    sweep_at: None,
});

/// Tells the sweeper that a deadline earlier than its `sweep_at` arrived.
static EARLIER: Notify = Notify::const_new();

fn table() -> MutexGuard<'static, Table> {
    // A panic while the lock was held leaves a table that is still
    // consistent (every update is a single assignment or push).
    TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The `hyper::rt::Timer` given to every HTTP connection.
#[derive(Clone, Copy, Default)]
pub struct HeaderTimer;

impl Timer for HeaderTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until((Instant::now() + duration).into())
    }

    fn sleep_until(&self, deadline: std::time::Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(HeaderSleep {
            deadline: deadline.into(),
            slot: AtomicUsize::new(NO_SLOT),
            fresh: AtomicBool::new(false),
        })
    }

    fn now(&self) -> std::time::Instant {
        Instant::now().into()
    }
}

/// A sleep until `now + after`, not boxed (the HTTP/1 fast path's); its
/// first poll does not read the clock again.
pub(super) fn sleep_after(after: Duration) -> HeaderSleep {
    HeaderSleep {
        deadline: Instant::now() + after,
        slot: AtomicUsize::new(NO_SLOT),
        fresh: AtomicBool::new(after > Duration::ZERO),
    }
}

/// One sleep; in the table from its first pending poll until it is dropped.
pub(super) struct HeaderSleep {
    deadline: Instant,
    /// Index in `TABLE.slots`, or `NO_SLOT`. (Atomic only because hyper
    /// wants `Sync`; it is read and written under the table lock.)
    slot: AtomicUsize,
    /// Made a moment ago with a deadline ahead: the first poll need not
    /// look at the clock.
    fresh: AtomicBool,
}

impl Sleep for HeaderSleep {}

impl Future for HeaderSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if !self.fresh.swap(false, Ordering::Relaxed) && Instant::now() >= self.deadline {
            return Poll::Ready(());
        }
        let mut t = table();
        let slot = self.slot.load(Ordering::Relaxed);
        match t.slots.get_mut(slot) {
            Some(Some(entry)) => match &mut entry.waker {
                Some(w) if w.will_wake(cx.waker()) => {}
                w => *w = Some(cx.waker().clone()),
            },
            _ => {
                let entry = Entry {
                    deadline: self.deadline,
                    waker: Some(cx.waker().clone()),
                };
                let slot = match t.free.pop() {
                    Some(i) => {
                        t.slots[i] = Some(entry);
                        i
                    }
                    None => {
                        t.slots.push(Some(entry));
                        t.slots.len() - 1
                    }
                };
                self.slot.store(slot, Ordering::Relaxed);
            }
        }
        match t.sweep_at {
            None => {
                t.sweep_at = Some(self.deadline);
                drop(t);
                tokio::spawn(sweeper());
            }
            Some(at) if at > self.deadline => {
                t.sweep_at = Some(self.deadline);
                drop(t);
                EARLIER.notify_one();
            }
            Some(_) => {}
        }
        Poll::Pending
    }
}

impl Drop for HeaderSleep {
    fn drop(&mut self) {
        let slot = *self.slot.get_mut();
        if slot == NO_SLOT {
            return;
        }
        let mut t = table();
        if let Some(s) = t.slots.get_mut(slot) {
            *s = None;
            t.free.push(slot);
        }
    }
}

/// Marks the sweeper gone when its task is dropped (runtime shut down), so
/// the next sleep starts a new one.
struct SweeperAlive;

impl Drop for SweeperAlive {
    fn drop(&mut self) {
        table().sweep_at = None;
    }
}

/// Sleeps until `sweep_at`, wakes the expired entries, recomputes `sweep_at`.
async fn sweeper() {
    let _alive = SweeperAlive;
    loop {
        let Some(at) = table().sweep_at else {
            return;
        };
        tokio::select! {
            _ = tokio::time::sleep_until(at) => {}
            _ = EARLIER.notified() => continue,
        }
        let now = Instant::now();
        let mut due = Vec::new();
        {
            let mut t = table();
            let mut next: Option<Instant> = None;
            for entry in t.slots.iter_mut().flatten() {
                if entry.deadline <= now {
                    due.extend(entry.waker.take());
                } else if next.is_none_or(|n| entry.deadline < n) {
                    next = Some(entry.deadline);
                }
            }
            // With nothing waiting, look again in a minute; a new sleep with
            // an earlier deadline notifies `EARLIER`.
            t.sweep_at = Some(next.unwrap_or(now + Duration::from_secs(60)));
        }
        for w in due {
            w.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn fires_at_deadline_and_not_before() {
        let t = HeaderTimer;
        let start = Instant::now();
        let short = t.sleep(Duration::from_secs(2));
        let mut long = t.sleep(Duration::from_secs(5));
        let mut dropped = t.sleep(Duration::from_secs(1));
        // Polled once (so in the table), then dropped: must not disturb the rest.
        assert!(poll_once(dropped.as_mut()).await.is_pending());
        drop(dropped);
        short.await;
        let after_short = Instant::now() - start;
        assert!(after_short >= Duration::from_secs(2) && after_short < Duration::from_secs(3));
        long.as_mut().await;
        assert!(Instant::now() - start >= Duration::from_secs(5));
    }

    async fn poll_once<F: Future + Unpin>(mut f: F) -> Poll<F::Output> {
        std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut f).poll(cx))).await
    }
}
