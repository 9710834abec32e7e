//! One registry per worker of its open connections: raw TCP streams, HTTP
//! connections and WebSocket connections (over TCP or TLS alike), by
//! connection id. It is the one path bytes and closes take to a connection
//! (`send`, `push`, `close`), the one place `exists`, `pause`/`resume`,
//! `protect` and the heartbeat look, and its [`Guard`] ends every
//! connection's life the same way.
//!
//! A connection's task owns its socket and reads [`Cmd`]s from its queue in
//! order (so `send()` then `close()` writes every byte before the FIN). The
//! caller encodes: a WebSocket push arrives as a whole frame, a WebSocket
//! close as its close frame, so the owner only writes (swoole-src's
//! `Factory::finish`). A command for a connection another worker owns goes
//! there over IPC as one `Send` or `Close` message carrying those bytes;
//! `engine::worker::inbox` hands it back to this module in the owner.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::time::Instant;

use crate::engine::ipc;
use crate::engine::net::outflow::{Limits, Outflow};
use crate::engine::shared::session;
use crate::engine::worker::ctx::WorkerCtx;

/// What speaks on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `Swoole\Server`'s `receive`/`send` (tcp.rs).
    Stream,
    /// hyper's HTTP/1 or HTTP/2 (http/conn.rs): no raw sends.
    Http,
    /// A WebSocket connection after its upgrade (ws.rs).
    WebSocket,
}

/// A connection's command queue: one sender (its [`Conn`] in the
/// registry), one receiver (its task), both on the worker's thread. Empty,
/// it holds no memory: tokio's unbounded channel allocates a block of 32
/// slots and its cache-padded counters up front, about 2 KiB for every
/// connection, most of them idle.
struct Queue {
    items: RefCell<std::collections::VecDeque<Cmd>>,
    /// The receiving task, when it waits.
    waker: Cell<Option<std::task::Waker>>,
    /// The receiver was dropped: `send` fails.
    rx_gone: Cell<bool>,
    /// The sender was dropped: `recv` ends once the queue is empty.
    tx_gone: Cell<bool>,
}

/// The registry's end of a [`Queue`].
#[derive(Debug)]
pub struct Sender(Rc<Queue>);

/// The connection task's end of a [`Queue`].
#[derive(Debug)]
pub struct Receiver(Rc<Queue>);

/// Why `Receiver::try_recv` has nothing.
#[derive(Debug, PartialEq, Eq)]
pub enum TryRecvError {
    Empty,
    Disconnected,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue")
            .field("len", &self.items.borrow().len())
            .finish()
    }
}

/// A new queue's two ends.
fn queue() -> (Sender, Receiver) {
    let q = Rc::new(Queue {
        items: RefCell::new(std::collections::VecDeque::new()),
        waker: Cell::new(None),
        rx_gone: Cell::new(false),
        tx_gone: Cell::new(false),
    });
    (Sender(q.clone()), Receiver(q))
}

impl Queue {
    fn wake(&self) {
        if let Some(w) = self.waker.take() {
            w.wake();
        }
    }
}

impl Sender {
    /// Queues `cmd`; gives it back when the task no longer reads.
    pub fn send(&self, cmd: Cmd) -> Result<(), Cmd> {
        if self.0.rx_gone.get() {
            return Err(cmd);
        }
        self.0.items.borrow_mut().push_back(cmd);
        self.0.wake();
        Ok(())
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        self.0.tx_gone.set(true);
        self.0.wake();
    }
}

impl Receiver {
    /// The next command; `None` once the sender is gone and all were read.
    pub fn poll_recv(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<Cmd>> {
        if let Some(cmd) = self.0.items.borrow_mut().pop_front() {
            return std::task::Poll::Ready(Some(cmd));
        }
        if self.0.tx_gone.get() {
            return std::task::Poll::Ready(None);
        }
        let w = match self.0.waker.take() {
            Some(w) if w.will_wake(cx.waker()) => w,
            _ => cx.waker().clone(),
        };
        self.0.waker.set(Some(w));
        std::task::Poll::Pending
    }

    pub async fn recv(&mut self) -> Option<Cmd> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// No more commands are taken (`send` fails); those queued can still
    /// be read.
    pub fn close(&mut self) {
        self.0.rx_gone.set(true);
    }

    pub fn try_recv(&mut self) -> Result<Cmd, TryRecvError> {
        match self.0.items.borrow_mut().pop_front() {
            Some(cmd) => Ok(cmd),
            None if self.0.tx_gone.get() => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.0.rx_gone.set(true);
        self.0.items.borrow_mut().clear();
    }
}

/// What a connection's task is asked to do, in order.
#[derive(Debug)]
pub enum Cmd {
    /// Write these bytes as they are (raw data, or a WebSocket frame).
    Data(Bytes),
    /// Write `last` (a WebSocket close frame, or nothing), then close;
    /// `reset`: at once, with an RST (raw TCP).
    Close { reset: bool, last: Bytes },
    /// Stop reading (raw TCP).
    Pause,
    /// Read again.
    Resume,
}

/// When data last moved on a connection, in milliseconds on the activity
/// clock (`Activity::now_ms`). `Send` (an atomic behind an `Arc`): hyper's
/// upgrade hands the HTTP socket, which updates it, over as a `Send` box.
#[derive(Clone, Debug)]
pub struct Activity(Arc<AtomicU64>);

impl Activity {
    pub fn new() -> Self {
        let a = Activity(Arc::new(AtomicU64::new(0)));
        a.set();
        a
    }

    /// Data moved now.
    pub fn set(&self) {
        self.0.store(Self::now_ms(), Ordering::Relaxed);
    }

    pub fn elapsed(&self) -> Duration {
        Duration::from_millis(Self::now_ms().saturating_sub(self.0.load(Ordering::Relaxed)))
    }

    /// The activity clock: the coarse monotonic clock, in milliseconds.
    /// Only the heartbeat reads it (idle times in seconds, so its few
    /// milliseconds of resolution are enough), and it is set on every read
    /// and write (twice per HTTP request): the coarse clock is a few loads,
    /// where the precise one and `Instant`'s arithmetic cost several times
    /// more.
    #[cfg(not(test))]
    fn now_ms() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid out-parameter for the call (which cannot
        // fail for this clock on Linux; `ts` stays zero if it did).
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
        ts.tv_sec.max(0) as u64 * 1000 + ts.tv_nsec.max(0) as u64 / 1_000_000
    }

    /// The activity clock in tests: tokio's, which they can pause and
    /// advance (milliseconds since a process base instant).
    #[cfg(test)]
    fn now_ms() -> u64 {
        static BASE: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        BASE.get_or_init(Instant::now).elapsed().as_millis() as u64
    }
}

impl Default for Activity {
    fn default() -> Self {
        Self::new()
    }
}

/// One open connection of this worker.
#[derive(Debug)]
pub struct Conn {
    fd: i64,
    kind: Kind,
    /// The task's command queue; it closes when the task stops reading.
    tx: Sender,
    /// Bytes queued and not yet written (`socket_buffer_size`).
    flow: Rc<Outflow>,
    port: usize,
    last: Activity,
    /// Requests being answered (HTTP): the heartbeat leaves it alone.
    busy: Cell<usize>,
    /// `protect()`: the heartbeat leaves it alone.
    protected: Cell<bool>,
    /// `close()` was asked: nothing more is written (HTTP: the response in
    /// progress is dropped, unless `linger`).
    closing: Cell<bool>,
    /// HTTP: `close()` came while a request was answered and after the
    /// script ended its response: that response is written, then the
    /// connection closes (Swoole flushes what `end()` sent); at the latest
    /// at this instant.
    linger: Cell<Option<Instant>>,
    /// WebSocket: permessage-deflate was negotiated (pushes compress).
    compress: Cell<bool>,
    /// A plain raw TCP connection's socket while its task serves it (-1:
    /// none): `send()` writes straight to it when nothing is queued, as
    /// Swoole does, so the bytes leave before the callback goes on.
    raw: Cell<i32>,
}

impl Conn {
    pub fn fd(&self) -> i64 {
        self.fd
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn flow(&self) -> &Rc<Outflow> {
        &self.flow
    }

    pub fn port(&self) -> usize {
        self.port
    }

    /// The activity clock (HTTP: the socket wrapper sets it on every read).
    pub fn activity(&self) -> &Activity {
        &self.last
    }

    /// Data arrived now (the heartbeat and `last_time` see it).
    pub fn touch(&self) {
        self.last.set();
        session::touch(self.fd);
    }

    /// A request starts being answered (paired with [`Self::end_request`]).
    pub fn begin_request(&self) {
        self.busy.set(self.busy.get() + 1);
        self.flow.set_ended(false);
    }

    pub fn end_request(&self) {
        self.busy.set(self.busy.get().saturating_sub(1));
    }

    pub fn is_closing(&self) -> bool {
        self.closing.get()
    }

    /// Closing after the response the script ended before `close()`:
    /// until when at the latest.
    pub fn lingers(&self) -> Option<Instant> {
        self.linger.get()
    }

    pub fn set_compress(&self, on: bool) {
        self.compress.set(on);
    }

    pub fn compress(&self) -> bool {
        self.compress.get()
    }

    /// Queues `data` unless the connection is closed (false) or its output
    /// buffer is full (`Err`).
    /// The socket `send()` may write to directly (see `raw`), or -1.
    pub fn set_raw_fd(&self, fd: i32) {
        self.raw.set(fd);
    }

    /// Queues `data` (or writes it at once, see `raw`): false when the
    /// connection is closed, `Err` when its output buffer is full.
    pub fn queue_bounded(&self, data: Bytes) -> Result<bool, Rc<Outflow>> {
        if self.flow.is_closed() {
            return Ok(false);
        }
        let raw = self.raw.get();
        let mut data = data;
        if raw >= 0 && self.flow.queued() == 0 && !self.closing.get() && !data.is_empty() {
            // Nothing queued or being written: what the socket takes now
            // goes at once, the rest through the queue.
            // SAFETY: `raw` is the open socket of this connection's task
            // (reset to -1 before the task drops it); the buffer is live.
            let n = unsafe {
                libc::send(
                    raw,
                    data.as_ptr().cast(),
                    data.len(),
                    libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                )
            };
            if n > 0 {
                let n = n as usize;
                crate::engine::shared::stats::on_send(n);
                if n == data.len() {
                    return Ok(true);
                }
                data = data.slice(n..);
            }
        }
        if !self.flow.has_room() {
            return Err(self.flow.clone());
        }
        let n = data.len();
        let ok = self.tx.send(Cmd::Data(data)).is_ok();
        if ok {
            self.flow.add(n);
        }
        Ok(ok)
    }

    fn close(&self, reset: bool, last: Bytes) -> bool {
        // Only the first close() of a request being answered lingers; a
        // second one (or a reset) closes at once.
        let linger = !self.closing.get()
            && !reset
            && self.kind == Kind::Http
            && self.busy.get() > 0
            && self.flow.is_ended();
        self.linger.set(linger.then(|| Instant::now() + LINGER_MAX));
        self.closing.set(true);
        self.tx.send(Cmd::Close { reset, last }).is_ok()
    }
}

/// How long an HTTP connection closed right after its response was ended
/// waits for that response to be written (a client that does not read it
/// does not keep the connection).
const LINGER_MAX: Duration = Duration::from_secs(5);

/// The registry, keyed by connection id with a multiplicative hash
/// instead of SipHash: ids are the server's own sequential integers
/// (nothing to defend against), and every push, send and frame of a
/// connection looks its id up (SipHash cost ~350 instructions per
/// seed 003 message in the worker).
type Table = HashMap<i64, Rc<Conn>, crate::engine::hash::IntBuild>;

thread_local! {
    /// Boxed: the dlopen()ed extension has little static TLS room.
    static REG: Box<RefCell<Option<Box<Table>>>> = Box::new(RefCell::new(None));
}

fn with<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    REG.with(|t| f(t.borrow_mut().get_or_insert_with(Default::default)))
}

/// Local connection `fd`.
pub fn get(fd: i64) -> Option<Rc<Conn>> {
    with(|t| t.get(&fd).cloned())
}

/// Enters connection `fd` (its session slot already open) in the registry
/// and in the worker's drain count. The connection's task keeps the
/// [`Guard`] for its whole life and reads the receiver. An entry already
/// under `fd` (the HTTP connection a WebSocket upgrade takes over) comes
/// back when the guard drops, unless [`Guard::own_session`] was called.
pub fn register(fd: i64, kind: Kind, port: usize, ctx: &Rc<WorkerCtx>) -> (Guard, Receiver) {
    let (tx, rx) = queue();
    let conn = Rc::new(Conn {
        fd,
        kind,
        tx,
        flow: Outflow::new(fd, Limits::from_config(&ctx.cfg)),
        port,
        last: Activity::new(),
        busy: Cell::new(0),
        protected: Cell::new(false),
        closing: Cell::new(false),
        linger: Cell::new(None),
        compress: Cell::new(false),
        raw: Cell::new(-1),
    });
    let replaced = with(|t| t.insert(fd, conn.clone()));
    ctx.conn_opened();
    let guard = Guard {
        conn,
        ctx: ctx.clone(),
        free_session: Cell::new(replaced.is_none()),
        replaced: RefCell::new(replaced),
    };
    (guard, rx)
}

/// Ends a connection's life when it drops, however its task ends (a panic
/// too, as mini-redis's `_shutdown_complete` sender does): the output
/// buffer's waiters give up, the entry leaves the registry, the session
/// slot is freed (other workers stop seeing the connection in
/// `getClientList()`/`exists()`), and the drain count goes down, waking a
/// draining worker at zero instead of leaving it to `max_wait_time`.
pub struct Guard {
    conn: Rc<Conn>,
    ctx: Rc<WorkerCtx>,
    /// False when the id lives on elsewhere (an HTTP connection that
    /// became a WebSocket one; the HTTP connection of an upgrade that did
    /// not happen).
    free_session: Cell<bool>,
    /// The entry this one replaced under the same id, put back on drop.
    replaced: RefCell<Option<Rc<Conn>>>,
}

impl Guard {
    pub fn conn(&self) -> &Rc<Conn> {
        &self.conn
    }

    /// Leaves the registry now (`exists()` is false from here; sends fail).
    /// Only this guard's own entry: a newer one under the id stays.
    pub fn unregister(&self) {
        let fd = self.conn.fd;
        with(|t| {
            if t.get(&fd).is_some_and(|c| Rc::ptr_eq(c, &self.conn)) {
                t.remove(&fd);
            }
        });
    }

    /// The session slot outlives this guard (another task owns the id now).
    pub fn keep_session(&self) {
        self.free_session.set(false);
    }

    /// This entry owns the id for good (a WebSocket upgrade went through):
    /// its drop frees the session slot, the replaced entry stays gone.
    pub fn own_session(&self) {
        self.free_session.set(true);
        self.replaced.borrow_mut().take();
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.conn.closing.set(true);
        self.conn.flow.close();
        self.unregister();
        if let Some(prev) = self.replaced.borrow_mut().take() {
            with(|t| {
                t.entry(prev.fd).or_insert(prev);
            });
        }
        if self.free_session.get() {
            crate::engine::proc::held::end_session(self.conn.fd);
        }
        self.ctx.conn_closed();
    }
}

/// Queues `data` on connection `fd` (here or in its owner worker). False
/// when no such connection exists, it is an HTTP one, or a local
/// connection's output buffer is full: the bytes are dropped with Swoole's
/// overflow warning (what the owner does with a send routed to it).
pub fn send(fd: i64, data: Bytes) -> bool {
    match send_bounded(fd, data) {
        Ok(ok) => ok,
        Err(_) => {
            crate::rlog!(
                Warning,
                "Server::send_to_connection() (ERRNO 1009): connection#{fd} output buffer overflow"
            );
            false
        }
    }
}

/// `send`, refused with `Err(outflow)` when the local connection's output
/// buffer is full (the caller may wait for room and send again). A send to
/// another worker's connection is bounded by that owner.
pub fn send_bounded(fd: i64, data: Bytes) -> Result<bool, Rc<Outflow>> {
    match get(fd) {
        Some(c) if c.kind == Kind::Http => Ok(false),
        Some(c) => c.queue_bounded(data),
        None => Ok(route(fd, ipc::Kind::Send, 0, data)),
    }
}

/// Closes `fd` after what was queued on it (`reset`: at once, with an RST;
/// an HTTP connection is dropped at once, its response in progress lost
/// unless the script already ended it: that one is written first).
pub fn close(fd: i64, reset: bool) -> bool {
    close_after(fd, reset, Bytes::new())
}

/// [`close`], writing `last` first (a WebSocket close frame).
pub fn close_after(fd: i64, reset: bool, last: Bytes) -> bool {
    match get(fd) {
        Some(c) => c.close(reset, last),
        None => route(fd, ipc::Kind::Close, reset as i64, last),
    }
}

/// A command for a connection another worker owns ("ours" by the session
/// table but not in the registry means it is closing: false).
fn route(fd: i64, kind: ipc::Kind, arg: i64, data: Bytes) -> bool {
    session::get(fd).is_some_and(|s| to_owner(s.worker, kind, fd, arg, data))
}

/// Hands a `Send` or `Close` for connection `fd` to worker `owner`. False
/// when the owner is this process or unknown, or the send failed (logged).
pub fn to_owner(owner: i32, kind: ipc::Kind, fd: i64, arg: i64, data: Bytes) -> bool {
    if owner < 0 || owner == crate::engine::worker::ctx::current_worker_id() {
        return false;
    }
    let m = ipc::Msg {
        kind,
        flags: 0,
        src: 0,
        id: fd,
        arg,
        data,
    };
    match ipc::send(owner as usize, m) {
        Ok(()) => true,
        Err(e) => {
            crate::rlog!(
                Warning,
                "{kind:?} to connection {fd} via worker#{owner}: {e}"
            );
            false
        }
    }
}

/// True while `fd` is open (in any worker).
pub fn exists(fd: i64) -> bool {
    get(fd).is_some() || session::get(fd).is_some()
}

/// The port a local connection came in on.
pub fn port_of(fd: i64) -> Option<usize> {
    get(fd).map(|c| c.port)
}

/// `pause()`/`resume()`: stop or restart reading from a local raw TCP
/// connection.
pub fn set_paused(fd: i64, paused: bool) -> bool {
    match get(fd) {
        Some(c) if c.kind == Kind::Stream => {
            c.tx.send(if paused { Cmd::Pause } else { Cmd::Resume })
                .is_ok()
        }
        _ => false,
    }
}

/// `protect()`: the heartbeat leaves this local connection alone.
pub fn protect(fd: i64, on: bool) -> bool {
    match get(fd) {
        Some(c) => {
            c.protected.set(on);
            true
        }
        None => false,
    }
}

/// Connections of this worker silent for `idle` or longer (not protected,
/// no request being answered), ascending; closed when `close_them` (a
/// WebSocket one without a close frame). `$server->heartbeat()` and the
/// sweeper.
pub fn idle_connections(idle: Duration, close_them: bool) -> Vec<i64> {
    idle_connections_by(&|_| idle, close_them)
}

/// [`idle_connections`] with the idle time of each port (by port index).
fn idle_connections_by(idle: &dyn Fn(usize) -> Duration, close_them: bool) -> Vec<i64> {
    let idle_ones: Vec<Rc<Conn>> = with(|t| {
        t.values()
            .filter(|c| !c.protected.get() && c.busy.get() == 0 && c.last.elapsed() >= idle(c.port))
            .cloned()
            .collect()
    });
    let mut fds = Vec::with_capacity(idle_ones.len());
    for c in idle_ones {
        if close_them {
            c.close(false, Bytes::new());
        }
        fds.push(c.fd);
    }
    fds.sort_unstable();
    fds
}

/// The heartbeat: every `interval` (`heartbeat_check_interval`), closes the
/// connections silent for `idle` (`heartbeat_idle_time`), or for their
/// port's own idle time (`per_port`, by port index). One per worker.
pub async fn sweeper(interval: Duration, idle: Duration, per_port: Vec<Option<Duration>>) {
    let idle_of = move |port: usize| per_port.get(port).copied().flatten().unwrap_or(idle);
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.reset();
    loop {
        tick.tick().await;
        for fd in idle_connections_by(&idle_of, true) {
            crate::rlog!(Debug, "heartbeat: closing idle connection {fd}");
        }
    }
}

/// Test-only faults (`--features fault-inject`, never in a release users
/// get): a raw TCP connection whose data starts with [`PANIC`] makes its
/// task panic, so a test can see what the [`Guard`] cleans up.
#[cfg(feature = "fault-inject")]
pub mod fault {
    pub const PANIC: &[u8] = b"\0rswoole-fault-inject:panic\0";

    /// Panics when `data` asks for it.
    pub fn check(data: &[u8]) {
        if data.starts_with(PANIC) {
            panic!("fault-inject: connection task panics");
        }
    }
}
