//! Requests from inside a worker to end it: `$server->stop()` (drain, the
//! exit callbacks run) and a fatal PHP error that no hook returned as an
//! `Outcome` (a coroutine failing after its first wait): drain, no more PHP,
//! exit with the error's code.
//!
//! The caller is deep in PHP (a method, a coroutine's completion) with no
//! handle on the worker's context, so the request is one process-wide word
//! and a `Notify` the worker's serve loop waits on. A worker is one process
//! with one serve loop; the loop records its pid when it starts ([`begin`]),
//! so a process forked from a worker (a `Process` started there) is not
//! taken for one, and what a parent left in the word does not count.

use std::sync::atomic::{AtomicI32, Ordering};

use tokio::sync::Notify;

/// 0: nothing asked; `STOP`: drain; any other value: poisoned with exit
/// code `value - POISON_BASE`. A poison is never downgraded to a stop.
static ASKED: AtomicI32 = AtomicI32::new(0);
const STOP: i32 = 1;
const POISON_BASE: i32 = 1 << 16;

/// The pid of the process whose serve loop listens (0: none).
static SERVING: AtomicI32 = AtomicI32::new(0);

/// Wakes the serve loop; `notify_one` keeps a permit, so a request made
/// while the loop is busy elsewhere is not lost.
static WAKE: Notify = Notify::const_new();

/// What the serve loop is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// Drain and exit normally (`$server->stop()`).
    Stop,
    /// PHP failed fatally: drain without PHP callbacks, exit with this code.
    Poison(i32),
}

fn my_pid() -> i32 {
    std::process::id() as i32
}

/// Whether this process is a worker whose serve loop takes requests.
pub fn serving() -> bool {
    SERVING.load(Ordering::Acquire) == my_pid()
}

/// `$server->stop()` on the calling worker. False outside a serve loop.
pub fn stop() -> bool {
    if !serving() {
        return false;
    }
    let _ = ASKED.compare_exchange(0, STOP, Ordering::AcqRel, Ordering::Acquire);
    WAKE.notify_one();
    true
}

/// A fatal error (or an uncaught `exit()`) this worker cannot recover from.
/// False outside a serve loop: the caller ends the process itself.
pub fn poison(code: i32) -> bool {
    if !serving() {
        return false;
    }
    // The first fatal's code wins.
    let v = POISON_BASE + (code & 0xff);
    let mut cur = ASKED.load(Ordering::Acquire);
    while cur < POISON_BASE {
        match ASKED.compare_exchange(cur, v, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => break,
            Err(now) => cur = now,
        }
    }
    WAKE.notify_one();
    true
}

/// Set by either way a worker learns of a fatal error: [`poison`], and
/// `WorkerCtx::poison` (a hook's `Outcome::Fatal`) through [`no_more_php`].
static NO_PHP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// PHP failed fatally in this worker: no coroutine is resumed from now on
/// (the serve loop drains; what waits gets the drain's answer).
pub fn no_more_php() {
    NO_PHP.store(true, Ordering::Release);
}

/// True once this worker was poisoned (a fatal error): no more PHP runs.
pub fn poisoned() -> bool {
    (NO_PHP.load(Ordering::Acquire) || ASKED.load(Ordering::Acquire) >= POISON_BASE) && serving()
}

/// What was asked so far, if anything.
pub fn asked() -> Option<Asked> {
    match ASKED.load(Ordering::Acquire) {
        0 => None,
        STOP => Some(Asked::Stop),
        v => Some(Asked::Poison(v - POISON_BASE)),
    }
}

/// A serve loop starts in this process: earlier requests are forgotten.
pub fn begin() {
    ASKED.store(0, Ordering::Release);
    SERVING.store(my_pid(), Ordering::Release);
}

/// The serve loop ended: later requests are refused.
pub fn end() {
    SERVING.store(0, Ordering::Release);
}

/// Resolves when [`stop`] or [`poison`] is called (or was, since the last
/// wait).
pub async fn wait() {
    WAKE.notified().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test: the word is process-wide and tests run in parallel.
    #[tokio::test]
    async fn poison_wins_over_stop_and_a_request_is_not_lost() {
        end();
        assert!(!stop() && !poison(1), "refused without a serve loop");
        begin();
        assert_eq!(asked(), None);
        assert!(stop());
        assert_eq!(asked(), Some(Asked::Stop));
        // Asked before anyone waited: the permit was kept.
        tokio::time::timeout(std::time::Duration::from_secs(1), wait())
            .await
            .expect("the wake-up was kept");
        poison(255);
        assert_eq!(asked(), Some(Asked::Poison(255)));
        poison(3);
        stop();
        assert_eq!(asked(), Some(Asked::Poison(255)));
        begin();
        assert_eq!(asked(), None);
        end();
    }
}
