//! A worker's loop ticker and watchdog thread: event-loop lag for the
//! metrics, blocking-call detection (`swoole.blocking_detection`) and the
//! per-request deadline (`request_timeout` / `max_execution_time`).
//!
//! The ticker is a task on the worker's loop that stamps the time each
//! round. The watchdog is a plain thread that only reads atomics, sleeps and
//! signals (it never allocates or locks, so a fork from the worker stays
//! sound): when the stamp is older than the threshold, the loop is blocked,
//! and it asks the PHP layer (through [`set_interrupt`]) to interrupt the
//! running PHP code, which then logs its stack or, past a request's
//! deadline, fails with PHP's own timeout error. See docs/internals.md.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::engine::config::ServerConfig;
use crate::engine::shared::stats;

/// Bits of [`take_pending`].
pub const BLOCKED: u32 = 1;
pub const DEADLINE: u32 = 2;

/// How long after a deadline a still-blocked loop is interrupted (the
/// loop's own timer answers when it is not blocked).
const DEADLINE_GRACE_MS: u64 = 50;

/// When the loop ticker last ran (ms of `stats::now_ms`).
static TICK_MS: AtomicU64 = AtomicU64::new(0);
/// The earliest deadline of a request in flight (ms), 0 for none.
static DEADLINE_MS: AtomicU64 = AtomicU64::new(0);
/// Causes the PHP interrupt function has to act on.
static PENDING: AtomicU32 = AtomicU32::new(0);
/// The tick the last block was reported for (one report per block).
static REPORTED_TICK: AtomicU64 = AtomicU64::new(u64::MAX);
/// The deadline the watchdog last interrupted for.
static FIRED_DEADLINE: AtomicU64 = AtomicU64::new(0);
/// How long the loop was blocked when the block was seen (ms).
static BLOCKED_MS: AtomicU64 = AtomicU64::new(0);
static RUNNING: AtomicBool = AtomicBool::new(false);
/// The ticker is gone (the worker is leaving): nothing to watch any more.
static PAUSED: AtomicBool = AtomicBool::new(false);
/// `fn()` that interrupts PHP (sets `EG(vm_interrupt)`), from the PHP layer.
static INTERRUPT: AtomicUsize = AtomicUsize::new(0);
/// `fn()` run on the watchdog thread when it finds the loop blocked
/// (records the PHP stack's lines), from the PHP layer.
static SAMPLER: AtomicUsize = AtomicUsize::new(0);
/// `fn() -> u64`: live coroutines, from the PHP layer.
static COROUTINES: AtomicUsize = AtomicUsize::new(0);
/// The worker's main thread, which the deadline's signal wakes.
static MAIN: AtomicU64 = AtomicU64::new(0);

/// The PHP layer's interrupt: must only do async-signal-safe, thread-safe
/// work (an atomic store into `EG(vm_interrupt)`).
pub fn set_interrupt(f: fn()) {
    INTERRUPT.store(f as usize, Ordering::Release);
}

/// The PHP layer's stack sampler (called on the watchdog thread; it must
/// not allocate or lock).
pub fn set_sampler(f: fn()) {
    SAMPLER.store(f as usize, Ordering::Release);
}

fn sample() {
    let f = SAMPLER.load(Ordering::Acquire);
    if f != 0 {
        // SAFETY: the value was stored from a `fn()` by `set_sampler`.
        let f: fn() = unsafe { std::mem::transmute::<usize, fn()>(f) };
        f();
    }
}

/// The PHP layer's coroutine counter (called on the loop's thread).
pub fn set_coroutine_counter(f: fn() -> u64) {
    COROUTINES.store(f as usize, Ordering::Release);
}

fn interrupt() {
    let f = INTERRUPT.load(Ordering::Acquire);
    if f != 0 {
        // SAFETY: the value was stored from a `fn()` by `set_interrupt`.
        let f: fn() = unsafe { std::mem::transmute::<usize, fn()>(f) };
        f();
    }
}

/// Coroutines alive in this process (0 before the PHP layer set its
/// counter).
pub fn coroutines() -> u64 {
    let f = COROUTINES.load(Ordering::Acquire);
    if f == 0 {
        return 0;
    }
    // SAFETY: the value was stored from a `fn() -> u64`.
    let f: fn() -> u64 = unsafe { std::mem::transmute::<usize, fn() -> u64>(f) };
    f()
}

/// True once the watchdog interrupted PHP for a deadline in this process
/// (the worker is then being replaced).
pub fn deadline_fired() -> bool {
    FIRED_DEADLINE.load(Ordering::Relaxed) != 0
}

/// On the PHP thread, from the interrupt function: what to act on.
pub fn take_pending() -> u32 {
    PENDING.swap(0, Ordering::AcqRel)
}

/// On the PHP thread: true while the loop is still stuck in the block that
/// was reported (an interrupt that arrives after the loop ran again is
/// stale: the block was not in PHP).
pub fn still_blocked() -> bool {
    TICK_MS.load(Ordering::Relaxed) == REPORTED_TICK.load(Ordering::Relaxed)
}

/// How long the loop had been blocked when the block was seen.
pub fn blocked_for() -> Duration {
    Duration::from_millis(
        stats::now_ms()
            .saturating_sub(TICK_MS.load(Ordering::Relaxed))
            .max(BLOCKED_MS.load(Ordering::Relaxed)),
    )
}

/// Starts the ticker (a loop task) and, when blocking detection or a
/// request deadline is on, the watchdog thread. Returns the ticker's task.
pub fn start(cfg: &ServerConfig) -> Option<tokio::task::JoinHandle<()>> {
    let watch = cfg.blocking_threshold.is_some() || cfg.request_timeout.is_some();
    if !watch && cfg.metrics.is_none() {
        return None;
    }
    let every = match cfg.blocking_threshold {
        Some(t) => (t / 2).clamp(Duration::from_millis(5), Duration::from_secs(1)),
        None if cfg.request_timeout.is_some() => Duration::from_millis(50),
        None => Duration::from_secs(1),
    };
    TICK_MS.store(stats::now_ms(), Ordering::Relaxed);
    if watch && !RUNNING.swap(true, Ordering::SeqCst) {
        // SAFETY: pthread_self has no preconditions.
        MAIN.store(unsafe { libc::pthread_self() } as u64, Ordering::Relaxed);
        install_wake_signal();
        let threshold = cfg.blocking_threshold;
        let spawned = std::thread::Builder::new()
            .name("rswoole-watchdog".into())
            .stack_size(64 * 1024)
            .spawn(move || watch_loop(threshold));
        if let Err(e) = spawned {
            crate::rlog!(Warning, "watchdog: cannot start its thread: {e}");
        }
    }
    Some(tokio::task::spawn_local(ticker(every)))
}

/// Stamps the time every `every`; every second also measures how late it
/// woke (the loop lag) and samples the coroutine count.
async fn ticker(every: Duration) {
    /// Dropped with the task (the worker is leaving): the watchdog stops
    /// reading the stamps.
    struct Paused;
    impl Drop for Paused {
        fn drop(&mut self) {
            PAUSED.store(true, Ordering::Relaxed);
        }
    }
    let _paused = Paused;
    PAUSED.store(false, Ordering::Relaxed);
    let second = Duration::from_secs(1);
    let mut since = Instant::now();
    let mut expected = since + every;
    let mut worst = Duration::ZERO;
    loop {
        tokio::time::sleep_until(expected.into()).await;
        let now = Instant::now();
        TICK_MS.store(stats::now_ms(), Ordering::Relaxed);
        worst = worst.max(now.saturating_duration_since(expected));
        if now.duration_since(since) >= second {
            stats::on_tick(Some(worst.as_micros() as u64), coroutines());
            worst = Duration::ZERO;
            since = now;
        } else {
            stats::on_tick(None, coroutines());
        }
        expected = now + every;
    }
}

fn watch_loop(threshold: Option<Duration>) {
    let threshold_ms = threshold.map(|t| t.as_millis() as u64);
    let nap = threshold
        .map(|t| (t / 4).clamp(Duration::from_millis(2), Duration::from_millis(25)))
        .unwrap_or(Duration::from_millis(25));
    loop {
        std::thread::sleep(nap);
        if PAUSED.load(Ordering::Relaxed) {
            continue;
        }
        let now = stats::now_ms();
        let tick = TICK_MS.load(Ordering::Relaxed);
        let silent = now.saturating_sub(tick);
        if let Some(t) = threshold_ms {
            if silent > t && REPORTED_TICK.load(Ordering::Relaxed) != tick {
                REPORTED_TICK.store(tick, Ordering::Relaxed);
                BLOCKED_MS.store(silent, Ordering::Relaxed);
                stats::on_blocked();
                sample();
                PENDING.fetch_or(BLOCKED, Ordering::AcqRel);
                interrupt();
            }
        }
        let d = DEADLINE_MS.load(Ordering::Relaxed);
        if d != 0
            && now > d + DEADLINE_GRACE_MS
            && tick < d
            && FIRED_DEADLINE.load(Ordering::Relaxed) != d
        {
            FIRED_DEADLINE.store(d, Ordering::Relaxed);
            PENDING.fetch_or(DEADLINE, Ordering::AcqRel);
            interrupt();
            // Wake a blocking system call (sleep(), usleep(), a read) so
            // PHP gets back to its VM and sees the interrupt.
            let main = MAIN.load(Ordering::Relaxed);
            // SAFETY: signals our own process's main thread, which lives
            // as long as the process; the handler does nothing.
            unsafe { libc::pthread_kill(main as libc::pthread_t, WAKE_SIGNAL) };
        }
    }
}

/// The signal that interrupts a blocking call of the PHP thread past a
/// deadline (ignored by default, so nothing else uses it).
const WAKE_SIGNAL: libc::c_int = libc::SIGURG;

extern "C" fn on_wake(_: libc::c_int) {}

fn install_wake_signal() {
    // SAFETY: a zeroed sigaction is valid; the handler does nothing and no
    // SA_RESTART is set, so a blocking call returns EINTR.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_wake as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(WAKE_SIGNAL, &sa, std::ptr::null_mut());
    }
}

thread_local! {
    /// Deadlines of the requests in flight on this worker (ms -> count).
    static DEADLINES: Box<RefCell<BTreeMap<u64, u32>>> = Box::new(RefCell::new(BTreeMap::new()));
}

fn publish(m: &BTreeMap<u64, u32>) {
    let earliest = m.keys().next().copied().unwrap_or(0);
    DEADLINE_MS.store(earliest, Ordering::Relaxed);
}

/// A request's deadline while it runs; dropping it withdraws it.
pub struct Deadline {
    at_ms: u64,
    pub at: Instant,
}

impl Deadline {
    /// `None` when no `request_timeout` is set.
    pub fn start(timeout: Option<Duration>) -> Option<Deadline> {
        let t = timeout?;
        let at_ms = stats::now_ms() + t.as_millis() as u64;
        DEADLINES.with(|d| {
            let mut d = d.borrow_mut();
            *d.entry(at_ms).or_insert(0) += 1;
            publish(&d);
        });
        Some(Deadline {
            at_ms,
            at: Instant::now() + t,
        })
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        DEADLINES.with(|d| {
            let mut d = d.borrow_mut();
            if let Some(n) = d.get_mut(&self.at_ms) {
                *n -= 1;
                if *n == 0 {
                    d.remove(&self.at_ms);
                }
            }
            publish(&d);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_deadline_is_published_and_withdrawn() {
        assert!(Deadline::start(None).is_none());
        let late = Deadline::start(Some(Duration::from_secs(10))).expect("deadline");
        let soon = Deadline::start(Some(Duration::from_secs(1))).expect("deadline");
        assert_eq!(DEADLINE_MS.load(Ordering::Relaxed), soon.at_ms);
        drop(soon);
        assert_eq!(DEADLINE_MS.load(Ordering::Relaxed), late.at_ms);
        drop(late);
        assert_eq!(DEADLINE_MS.load(Ordering::Relaxed), 0);
    }
}
