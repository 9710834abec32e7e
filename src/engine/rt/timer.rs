//! Timers: `Swoole\Timer::tick/after` in engine terms. A timer is a task on
//! the process's loop; the table keeps what `info()`/`list()`/`stats()` show.
//!
//! The engine never sees a PHP callable: a timer carries a Rust callback that
//! receives the timer id, and the PHP layer keeps the callable under that id.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use tokio::task::AbortHandle;

use crate::engine::rt::event_loop;

pub type TimerId = i64;

/// What `Swoole\Timer::info()` reports.
#[derive(Debug, Clone)]
pub struct TimerInfo {
    pub exec_msec: i64,
    pub exec_count: i64,
    pub interval: i64,
    pub round: i64,
    pub removed: bool,
}

struct Entry {
    info: TimerInfo,
    abort: Option<AbortHandle>,
    /// When it fires next.
    at: Instant,
}

thread_local! {
    static TABLE: Box<RefCell<BTreeMap<TimerId, Entry>>> = Box::new(RefCell::new(BTreeMap::new()));
    static NEXT_ID: Cell<TimerId> = const { Cell::new(1) };
    static ROUND: Cell<i64> = const { Cell::new(0) };
    static BORN: Cell<Option<Instant>> = const { Cell::new(None) };
    /// The timer whose callback is running now (0: none).
    static RUNNING: Cell<TimerId> = const { Cell::new(0) };
}

/// Removes a timer's entry when its task ends, however it ends (finished,
/// or aborted by `clear`).
struct EntryGuard(TimerId);

impl Drop for EntryGuard {
    fn drop(&mut self) {
        let _ = TABLE.try_with(|t| {
            if let Ok(mut t) = t.try_borrow_mut() {
                t.remove(&self.0);
            }
        });
    }
}

/// True once any timer was created in this process (`Timer::stats()`).
pub fn initialized() -> bool {
    BORN.with(|b| b.get().is_some())
}

fn since_start_ms() -> i64 {
    let born = BORN.with(|b| match b.get() {
        Some(t) => t,
        None => {
            let t = Instant::now();
            b.set(Some(t));
            t
        }
    });
    born.elapsed().as_millis() as i64
}

/// Waits while another live timer is due before this one (an earlier
/// deadline, or the same one and created first): timers fire in Swoole's
/// heap order even when the loop wakes them in another order (same loop
/// round, or another thread driving the clock). Gives up after 20 ms.
async fn in_deadline_order(deadline: Instant, id: TimerId) {
    let give_up = deadline + Duration::from_millis(20);
    loop {
        let earlier = TABLE.with(|t| {
            t.borrow()
                .iter()
                .any(|(k, e)| *k != id && !e.info.removed && (e.at, *k) < (deadline, id))
        });
        if !earlier || Instant::now() >= give_up {
            return;
        }
        tokio::task::yield_now().await;
    }
}

/// Starts a timer: `cb(id)` after `interval`, and every `interval` after that
/// when `repeat`. Returns the id (> 0).
pub fn add(interval: Duration, repeat: bool, cb: Rc<dyn Fn(TimerId)>) -> TimerId {
    let id = NEXT_ID.with(|n| {
        let id = n.get();
        n.set(id + 1);
        id
    });
    let first = Instant::now() + interval;
    let ms = interval.as_millis() as i64;
    TABLE.with(|t| {
        t.borrow_mut().insert(
            id,
            Entry {
                info: TimerInfo {
                    exec_msec: since_start_ms() + ms,
                    exec_count: 0,
                    interval: if repeat { ms } else { 0 },
                    round: ROUND.with(Cell::get),
                    removed: false,
                },
                abort: None,
                at: first,
            },
        )
    });
    let handle = event_loop::spawn(async move {
        let _guard = EntryGuard(id);
        let mut next = first;
        loop {
            tokio::time::sleep_until(next.into()).await;
            in_deadline_order(next, id).await;
            let alive = TABLE.with(|t| match t.borrow_mut().get_mut(&id) {
                Some(e) if !e.info.removed => {
                    e.info.exec_count += 1;
                    true
                }
                _ => false,
            });
            if !alive {
                break;
            }
            ROUND.with(|r| r.set(r.get() + 1));
            let outer = RUNNING.with(|r| r.replace(id));
            cb(id);
            RUNNING.with(|r| r.set(outer));
            if !repeat || !exists(id) {
                break;
            }
            next += interval;
            // A callback slower than the interval: skip the missed beats,
            // keeping the tick's phase (as Swoole's timer does).
            let now = Instant::now();
            while next < now && !interval.is_zero() {
                next += interval;
            }
            TABLE.with(|t| {
                if let Some(e) = t.borrow_mut().get_mut(&id) {
                    e.info.exec_msec = since_start_ms() + interval.as_millis() as i64;
                    e.at = next;
                }
            });
        }
    });
    TABLE.with(|t| {
        if let Some(e) = t.borrow_mut().get_mut(&id) {
            e.abort = Some(handle.abort_handle());
        }
    });
    id
}

/// Stops a timer; false if there is no such (live) timer. Its entry stays,
/// marked `removed`, until its task is gone (so a callback that clears its
/// own timer still sees `info()`).
pub fn clear(id: TimerId) -> bool {
    let abort = TABLE.with(|t| match t.borrow_mut().get_mut(&id) {
        Some(e) if !e.info.removed => {
            e.info.removed = true;
            Some(e.abort.take())
        }
        _ => None,
    });
    match abort {
        Some(a) => {
            if let Some(a) = a {
                a.abort();
            }
            // Outside its own callback the entry goes now; inside, it stays
            // (marked removed) until the callback returns.
            if RUNNING.with(Cell::get) != id {
                TABLE.with(|t| t.borrow_mut().remove(&id));
            }
            event_loop::wake();
            true
        }
        None => false,
    }
}

pub fn clear_all() -> bool {
    let ids: Vec<TimerId> = list();
    for id in &ids {
        clear(*id);
    }
    !ids.is_empty()
}

pub fn exists(id: TimerId) -> bool {
    TABLE.with(|t| t.borrow().get(&id).is_some_and(|e| !e.info.removed))
}

pub fn info(id: TimerId) -> Option<TimerInfo> {
    TABLE.with(|t| t.borrow().get(&id).map(|e| e.info.clone()))
}

pub fn list() -> Vec<TimerId> {
    TABLE.with(|t| {
        t.borrow()
            .iter()
            .filter(|(_, e)| !e.info.removed)
            .map(|(id, _)| *id)
            .collect()
    })
}

/// After fork, in a server's worker or manager: the timers the parent
/// created stay the parent's (as Swoole frees them in a forked child).
pub fn forget_inherited() {
    let entries = TABLE.with(|t| std::mem::take(&mut *t.borrow_mut()));
    for (_, e) in entries {
        if let Some(a) = e.abort {
            a.abort();
        }
    }
}

/// Live timers: a reason to keep a loop (or a draining worker) running.
pub fn pending() -> usize {
    TABLE.with(|t| t.borrow().values().filter(|e| !e.info.removed).count())
}

pub fn round() -> i64 {
    ROUND.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_and_clears() {
        let hits = Rc::new(Cell::new(0));
        let h = hits.clone();
        let id = add(
            Duration::from_millis(5),
            true,
            Rc::new(move |id| {
                h.set(h.get() + 1);
                if h.get() == 3 {
                    clear(id);
                }
            }),
        );
        assert!(id > 0 && exists(id));
        let once = Rc::new(Cell::new(0));
        let o = once.clone();
        let after = add(
            Duration::from_millis(1),
            false,
            Rc::new(move |_| o.set(o.get() + 1)),
        );
        assert!(event_loop::run_until_idle(|| pending() == 0));
        assert_eq!(hits.get(), 3);
        assert_eq!(once.get(), 1);
        assert!(!exists(id) && !exists(after));
        assert!(!clear(id));
    }

    #[test]
    fn info_and_list() {
        let id = add(Duration::from_millis(50), true, Rc::new(|_| {}));
        let i = info(id).expect("info");
        assert_eq!(i.interval, 50);
        // A one-shot timer reports interval 0, as in Swoole.
        let once = add(Duration::from_millis(50), false, Rc::new(|_| {}));
        assert_eq!(info(once).expect("info").interval, 0);
        assert_eq!(i.exec_count, 0);
        assert!(list().contains(&id));
        assert!(clear_all());
        assert_eq!(pending(), 0);
        assert!(event_loop::run_until_idle(|| event_loop::live_tasks() == 0));
    }
}
