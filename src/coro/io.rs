//! Waiting for I/O from a coroutine: a future runs as a task on the
//! process's event loop while only the calling coroutine is suspended.
//!
//! The future owns whatever it works on (a socket half, a buffer) and hands
//! it back in its output, so nothing is borrowed across the suspension. A
//! timeout belongs inside the future (`tokio::time::timeout`), where the
//! future can give its resources back; the coroutine itself waits without
//! one.

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;

use super::{current, resume_kind, wait, Error, WaitKind, Wake};
use crate::engine::rt::event_loop;

/// Runs `fut` on the event loop and suspends the current coroutine until it
/// completes; returns its output. `Err(NotInCoroutine)` outside a coroutine,
/// `Err(Fiber)` when PHP destroys the coroutine meanwhile (the task still
/// runs to its end and its output is dropped).
pub fn run<F>(fut: F) -> Result<F::Output, Error>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let cid = current();
    if cid < 0 {
        return Err(Error::NotInCoroutine);
    }
    let slot: Rc<Cell<Option<F::Output>>> = Rc::new(Cell::new(None));
    let out = Rc::clone(&slot);
    // Boxed: the task is then a pointer, not the whole future, which tokio
    // would otherwise copy several times while spawning and polling it
    // (the HTTP client's futures are kilobytes: a WebSocket push + recv
    // spent ~4,700 instructions per message in memcpy).
    let task = event_loop::spawn(Box::pin(async move {
        let v = fut.await;
        out.set(Some(v));
        // The task only runs once the coroutine has suspended below (the
        // loop polls tasks only while coroutines are parked), so the wait
        // is always in place when this fires.
        resume_kind(cid, WaitKind::Io, Wake::Resumed);
    }));
    loop {
        wait(WaitKind::Io, None)?;
        if let Some(v) = slot.take() {
            return Ok(v);
        }
        if super::is_canceled() {
            // `Coroutine::cancel()` with no hook for this wait: give up on
            // it (its task goes too, so it keeps no loop alive).
            task.abort();
            return Err(Error::Fiber);
        }
        // Woken by someone else (a stray `Io` resume): keep waiting.
    }
}
