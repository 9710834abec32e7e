//! A connection's bounded output buffer (`socket_buffer_size`): bytes a
//! script queued (`Response::write()`, `push()`) that the socket has not
//! taken yet.
//!
//! Swoole's rules: a send is refused once the queue holds `limit` bytes
//! (the send that crosses the limit is still taken); `onBufferFull` fires
//! when the queue reaches the high watermark, `onBufferEmpty` when it
//! falls back to the low one, and a coroutine waiting for room
//! (`send_yield`) is woken then. Closing the connection wakes every waiter.
//! The queued bytes themselves live in the connection's channel; this only
//! counts them.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use tokio::sync::Notify;

use crate::engine::config::ServerConfig;

extern "C" {
    // void mi_collect(bool force);  (mimalloc, the global allocator)
    fn mi_collect(force: bool);
}

/// The thresholds, from the server settings.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// `socket_buffer_size`: no more is queued past this.
    pub limit: usize,
    /// `buffer_high_watermark` (default 80 % of `limit`): `onBufferFull`.
    pub high: usize,
    /// `buffer_low_watermark` (default 0): `onBufferEmpty`, waiters woken.
    pub low: usize,
}

impl Limits {
    pub fn from_config(cfg: &ServerConfig) -> Self {
        let limit = cfg.output_buffer_limit.max(1);
        let high = cfg
            .buffer_high_watermark
            .unwrap_or(limit / 10 * 8)
            .clamp(1, limit);
        let low = cfg.buffer_low_watermark.min(high.saturating_sub(1));
        Limits { limit, high, low }
    }
}

/// Called (on the event loop, never inside a socket poll) with the
/// connection id and `true` for "full", `false` for "empty".
type Sink = Rc<dyn Fn(i64, bool)>;

thread_local! {
    /// This process's buffer-event handler, set by the worker at start.
    /// Boxed (a thin pointer): the dlopen()ed extension has little static TLS room.
    static SINK: Box<RefCell<Option<Box<Sink>>>> = Box::new(RefCell::new(None));
}

/// Sets the handler `onBufferFull`/`onBufferEmpty` go to (None: none).
pub fn set_sink(sink: Option<Sink>) {
    SINK.with(|s| *s.borrow_mut() = sink.map(Box::new));
}

fn fire(fd: i64, full: bool) {
    let Some(sink) = SINK.with(|s| s.borrow().as_deref().cloned()) else {
        return;
    };
    crate::engine::rt::event_loop::spawn(async move { sink(fd, full) });
}

/// One connection's count of unsent bytes.
#[derive(Debug)]
pub struct Outflow {
    fd: i64,
    limits: Limits,
    queued: Cell<usize>,
    /// Past the high watermark (`onBufferFull` fired, `onBufferEmpty` owed).
    full: Cell<bool>,
    /// It was full at some point: its close gives freed memory back.
    was_full: Cell<bool>,
    closed: Cell<bool>,
    /// HTTP: the script ended the response of the request in progress
    /// (`Conn::close` after it still sends it, as Swoole does).
    ended: Cell<bool>,
    room: Notify,
}

impl Outflow {
    pub fn new(fd: i64, limits: Limits) -> Rc<Self> {
        Rc::new(Outflow {
            fd,
            limits,
            queued: Cell::new(0),
            full: Cell::new(false),
            was_full: Cell::new(false),
            closed: Cell::new(false),
            ended: Cell::new(false),
            room: Notify::new(),
        })
    }

    /// Bytes queued and not yet taken by the socket.
    pub fn queued(&self) -> usize {
        self.queued.get()
    }

    /// False when a send must be refused (or wait): the queue is at its
    /// limit.
    pub fn has_room(&self) -> bool {
        self.queued.get() < self.limits.limit
    }

    /// The response in progress was ended (`end()`, `sendfile()`).
    pub fn set_ended(&self, ended: bool) {
        self.ended.set(ended);
    }

    pub fn is_ended(&self) -> bool {
        self.ended.get()
    }

    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }

    /// `n` more bytes queued.
    pub fn add(&self, n: usize) {
        let q = self.queued.get() + n;
        self.queued.set(q);
        if !self.full.get() && q >= self.limits.high {
            self.full.set(true);
            self.was_full.set(true);
            fire(self.fd, true);
        }
    }

    /// `n` bytes left the queue (written to the socket, or dropped).
    pub fn sent(&self, n: usize) {
        let q = self.queued.get().saturating_sub(n);
        self.queued.set(q);
        if q <= self.limits.low {
            if self.full.get() {
                self.full.set(false);
                fire(self.fd, false);
            }
            self.room.notify_waiters();
        }
    }

    /// The connection is gone: nothing more will drain; waiters give up.
    /// After a connection that filled its buffer, the allocator is asked to
    /// return the freed pages (mimalloc keeps them otherwise, and the RSS
    /// would stay at its peak).
    pub fn close(&self) {
        self.closed.set(true);
        self.queued.set(0);
        self.room.notify_waiters();
        if self.was_full.replace(false) {
            // On the loop's next round, once the queued bytes are dropped.
            crate::engine::rt::event_loop::spawn(async {
                // SAFETY: mi_collect only walks mimalloc's own heaps (our
                // global allocator) on the calling thread.
                unsafe { mi_collect(true) };
            });
        }
    }

    /// Waits until the queue is down to the low watermark (true), or the
    /// connection closed or `timeout` passed (false).
    pub async fn wait_room(self: Rc<Self>, timeout: Option<Duration>) -> bool {
        let wait = async {
            loop {
                let notified = self.room.notified();
                if self.closed.get() {
                    return false;
                }
                if self.queued.get() <= self.limits.low {
                    return true;
                }
                notified.await;
            }
        };
        match timeout {
            Some(t) => tokio::time::timeout(t, wait).await.unwrap_or(false),
            None => wait.await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            limit: 100,
            high: 80,
            low: 0,
        }
    }

    #[test]
    fn refuses_at_the_limit_and_recovers() {
        let f = Outflow::new(1, limits());
        f.add(60);
        assert!(f.has_room());
        f.add(60); // the send that crosses the limit is taken
        assert!(!f.has_room());
        assert_eq!(f.queued(), 120);
        f.sent(100);
        assert!(f.has_room());
        f.sent(100);
        assert_eq!(f.queued(), 0);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn waiters_wake_on_drain_and_on_close() {
        let f = Outflow::new(1, limits());
        f.add(200);
        assert!(!f.clone().wait_room(Some(Duration::from_millis(10))).await);
        f.sent(200);
        assert!(f.clone().wait_room(Some(Duration::from_millis(10))).await);
        f.add(200);
        f.close();
        assert!(!f.clone().wait_room(None).await);
    }
}
