//! SWOOLE_PROCESS: per-message dispatch of raw TCP ports. With
//! `dispatch_mode` 1 (round robin), 3 (idle worker) or 9 (fewest
//! coroutines), or a `dispatch_func`,
//! Swoole's master picks a worker for every message, not for every
//! connection. Here the worker the master handed the connection to cuts its
//! messages out as usual and sends each to the worker the mode names (an
//! `ipc::Kind::Receive` message), or handles it itself when that is its own
//! id. The other worker's `send($fd)` reaches the connection through the
//! session table, as any cross-worker send.
//!
//! A connection outlives its worker, as it outlives Swoole's workers (they
//! never own a socket there): a worker that retires (`max_request`) or
//! drains hands its idle raw TCP connections back to the master
//! (`reactor::give_back`), which gives each to another worker.

use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use bytes::Bytes;

use crate::engine::config::{Mode, ServerConfig};
use crate::engine::hooks::Outcome;
use crate::engine::ipc::{self, Kind, Msg};
use crate::engine::shared::stats;
use crate::engine::worker::ctx::WorkerCtx;

/// Swoole's `SW_SERVER_EVENT_RECV_DATA`: the `$type` a `dispatch_func` gets.
const EVENT_RECV_DATA: i32 = 0;
/// `SWOOLE_DISPATCH_RESULT_DISCARD_PACKET`, `..._CLOSE_CONNECTION`.
const DISCARD_PACKET: i64 = -1;
const CLOSE_CONNECTION: i64 = -2;

/// Where one message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Here,
    Worker(usize),
    /// `dispatch_func` returned `SWOOLE_DISPATCH_RESULT_DISCARD_PACKET`.
    Discard,
    /// `dispatch_func` returned `SWOOLE_DISPATCH_RESULT_CLOSE_CONNECTION`.
    Close,
}

/// Whether the messages of raw TCP connections are dispatched one by one.
pub fn per_message(cfg: &ServerConfig) -> bool {
    cfg.mode == Mode::Process && (cfg.dispatch_func || matches!(cfg.dispatch_mode, 1 | 3 | 9))
}

/// Swoole fires no `onConnect`/`onClose` in PROCESS mode with a dispatch
/// mode that does not keep a connection on one worker (1, 3, 9): they could
/// not be ordered with the connection's messages.
pub fn no_conn_events(cfg: &ServerConfig) -> bool {
    cfg.mode == Mode::Process && matches!(cfg.dispatch_mode, 1 | 3 | 9)
}

/// Mode 9: this worker's live coroutines, for the others to compare
/// (Swoole's workers publish theirs at the end of every loop round: here
/// after each message and each time the loop goes to sleep).
pub fn publish_coroutines(id: usize) {
    if let Some(c) = stats::shared().and_then(|s| s.dispatch_coroutines.get(id)) {
        c.store(crate::engine::watchdog::coroutines(), Ordering::Relaxed);
    }
}

/// Mode 9: the worker with the fewest coroutines, the lowest id of those
/// (Swoole's `get_lowest_load_worker_id`).
fn least_coroutines(n: usize) -> usize {
    let Some(s) = stats::shared() else {
        return 0;
    };
    (0..n)
        .min_by_key(|&i| {
            s.dispatch_coroutines
                .get(i)
                .map_or(0, |c| c.load(Ordering::Relaxed))
        })
        .unwrap_or(0)
}

fn pending(id: usize, n: i64) {
    if let Some(p) = stats::shared().and_then(|s| s.dispatch_pending.get(id)) {
        p.fetch_add(n, Ordering::Relaxed);
    }
}

fn next_rr() -> usize {
    stats::shared().map_or(0, |s| {
        s.dispatch_rr.fetch_add(1, Ordering::Relaxed) as usize
    })
}

/// Mode 3: the first worker with nothing pending from the round-robin
/// position on, else the one with the fewest messages pending.
fn idle_worker(n: usize) -> usize {
    let start = next_rr() % n;
    let Some(s) = stats::shared() else {
        return start;
    };
    (0..n)
        .map(|k| (start + k) % n)
        .min_by_key(|&i| {
            s.dispatch_pending
                .get(i)
                .map_or(0, |p| p.load(Ordering::Relaxed).max(0))
        })
        .unwrap_or(start)
}

/// The worker for one message of connection `fd` read by this worker.
pub fn target(ctx: &WorkerCtx, fd: i64, data: &Bytes) -> Target {
    let n = ipc::worker_num();
    if ctx.cfg.dispatch_func {
        match ctx.hooks.dispatch(fd, EVENT_RECV_DATA, data) {
            Some(DISCARD_PACKET) => return Target::Discard,
            Some(CLOSE_CONNECTION) => return Target::Close,
            Some(id) if id >= 0 && (id as usize) < n.max(1) => return here_or(ctx, id as usize),
            // SWOOLE_DISPATCH_RESULT_USERFUNC_FALLBACK, an error: the mode.
            _ => {}
        }
    }
    if n <= 1 {
        return Target::Here;
    }
    match ctx.cfg.dispatch_mode {
        1 => here_or(ctx, next_rr() % n),
        3 => here_or(ctx, idle_worker(n)),
        9 => here_or(ctx, least_coroutines(n)),
        // The hash modes keep a connection on the worker that has it.
        _ => Target::Here,
    }
}

fn here_or(ctx: &WorkerCtx, id: usize) -> Target {
    if id == ctx.id {
        Target::Here
    } else {
        Target::Worker(id)
    }
}

/// Sends one message of `fd` (read on port `port`) to worker `id`; gives
/// the bytes back when it cannot be sent.
pub fn forward(id: usize, fd: i64, port: usize, data: Bytes) -> Result<(), Bytes> {
    pending(id, 1);
    let m = Msg {
        kind: Kind::Receive,
        flags: 0,
        src: 0,
        id: fd,
        arg: port as i64,
        data: data.clone(),
    };
    match ipc::send(id, m) {
        Ok(()) => Ok(()),
        Err(e) => {
            pending(id, -1);
            crate::rlog!(Warning, "dispatch to worker#{id}: {e}");
            Err(data)
        }
    }
}

/// `onReceive` for one message in this worker, counted as a request
/// (`max_request`) and as busy (`idle_worker_num`, mode 3) while it runs.
pub fn handle(ctx: &WorkerCtx, fd: i64, reactor: i32, port: usize, data: Bytes, counted: bool) {
    if counted {
        pending(ctx.id, 1);
    }
    let busy = stats::InFlight::enter();
    let out = ctx.hooks.on_receive(fd, reactor, port, data);
    drop(busy);
    if ctx.cfg.dispatch_mode == 9 {
        publish_coroutines(ctx.id);
    }
    if counted {
        pending(ctx.id, -1);
    }
    if let Outcome::Fatal(code) = out {
        ctx.poison(code);
        return;
    }
    ctx.requests.set(ctx.requests.get() + 1);
    ctx.after_request();
}

/// A message another worker sent us (`Kind::Receive`). A worker that is
/// retiring takes no more: the message goes back to the inbox of its worker
/// id, which its replacement reads too, as Swoole's retiring worker stops
/// reading the pipe its replacement then reads.
pub fn on_forwarded(ctx: &Rc<WorkerCtx>, m: Msg) {
    if ctx.is_retiring() && m.flags & HOPS != HOPS {
        let mut m = m;
        m.flags += HOP;
        requeue(ctx, m);
        return;
    }
    handle(ctx, m.id, m.src, m.arg.max(0) as usize, m.data, false);
    pending(ctx.id, -1);
}

/// Bits of `Msg::flags` counting how often a `Send`/`Close` went back to
/// the inbox (the engine's own messages leave `flags` 0).
const HOPS: u32 = 0x7f << 24;
const HOP: u32 = 1 << 24;

/// A `Send` or `Close` for a connection this worker id owns by the session
/// table but this process does not have: the other process with our id
/// (the one we replace, or our replacement) reads the same inbox and has
/// it. The message goes back to the inbox (a few times at most); `Some`
/// gives it back to the caller when it is ours to handle.
pub fn not_ours(ctx: &Rc<WorkerCtx>, m: Msg) -> Option<Msg> {
    if !matches!(m.kind, Kind::Send | Kind::Close)
        || crate::engine::net::conns::get(m.id).is_some()
        || m.flags & HOPS == HOPS
        || crate::engine::shared::session::get(m.id).is_none_or(|s| s.worker != ctx.id as i32)
    {
        return Some(m);
    }
    let mut m = m;
    m.flags += HOP;
    requeue(ctx, m);
    None
}

/// Puts `m` back in the inbox of our worker id a little later (at once
/// when we drain: our replacement is ready). Counted as an open
/// connection meanwhile, so the worker does not exit with it.
fn requeue(ctx: &Rc<WorkerCtx>, m: Msg) {
    ctx.conn_opened();
    let ctx = ctx.clone();
    tokio::task::spawn_local(async move {
        let mut stop = ctx.shutdown.subscribe();
        if !*stop.borrow() {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(1)) => {}
                _ = stop.changed() => {}
            }
        }
        let (id, receive) = (ctx.id, m.kind == Kind::Receive);
        if let Err(e) = ipc::send(id, m) {
            crate::rlog!(Warning, "dispatch to worker#{id}: {e}");
            if receive {
                pending(id, -1);
            }
        }
        ctx.conn_closed();
    });
}

/// Swoole's `SW_SERVER_EVENT_RECV_DGRAM`.
const EVENT_RECV_DGRAM: i32 = 1;

/// SWOOLE_PROCESS with a `dispatch_func`: the worker for one datagram from
/// `peer` (the function's `$fd` is the IPv4 address as the C struct holds
/// it, as in Swoole); without one, the worker that read it.
pub fn packet_target(ctx: &WorkerCtx, peer: &std::net::SocketAddr, data: &Bytes) -> Target {
    if !(ctx.cfg.dispatch_func && ctx.cfg.mode == Mode::Process) {
        return Target::Here;
    }
    let fd = match peer.ip() {
        std::net::IpAddr::V4(v4) => i64::from(u32::from_ne_bytes(v4.octets())),
        std::net::IpAddr::V6(v6) => i64::from(crate::engine::hash::zend_hash(&v6.octets()) as u32),
    };
    let n = ipc::worker_num().max(1);
    match ctx.hooks.dispatch(fd, EVENT_RECV_DGRAM, data) {
        Some(DISCARD_PACKET) => Target::Discard,
        Some(id) if id >= 0 && (id as usize) < n => here_or(ctx, id as usize),
        _ => Target::Here,
    }
}

/// Sends one datagram to worker `id` (`Kind::Packet`): `arg` holds the
/// server socket and port, `data` the peer address (its length first).
pub fn forward_packet(
    id: usize,
    port: usize,
    server_fd: i32,
    server_port: u16,
    peer: std::net::SocketAddr,
    data: Bytes,
) -> Result<(), Bytes> {
    let addr = peer.to_string();
    let mut b = Vec::with_capacity(2 + addr.len() + data.len());
    b.extend_from_slice(&(addr.len() as u16).to_le_bytes());
    b.extend_from_slice(addr.as_bytes());
    b.extend_from_slice(&data);
    let m = Msg {
        kind: Kind::Packet,
        flags: 0,
        src: 0,
        id: port as i64,
        arg: i64::from(server_fd as u32) | (i64::from(server_port) << 32),
        data: Bytes::from(b),
    };
    ipc::send(id, m).map_err(|e| {
        crate::rlog!(Warning, "dispatch to worker#{id}: {e}");
        data
    })
}

/// `onPacket` for one datagram in this worker.
pub fn handle_packet(
    ctx: &WorkerCtx,
    port: usize,
    data: Bytes,
    peer: std::net::SocketAddr,
    server_fd: i32,
    server_port: u16,
) {
    let busy = stats::InFlight::enter();
    let out = ctx
        .hooks
        .on_packet(port, data, peer, server_fd, server_port);
    drop(busy);
    if let Outcome::Fatal(code) = out {
        ctx.poison(code);
    }
}

/// A datagram another worker read (`Kind::Packet`).
pub fn on_packet(ctx: &WorkerCtx, m: Msg) {
    let d = &m.data;
    let Some(len) = d
        .get(..2)
        .map(|l| u16::from_le_bytes([l[0], l[1]]) as usize)
    else {
        return;
    };
    let Some(peer) = d
        .get(2..2 + len)
        .and_then(|a| std::str::from_utf8(a).ok())
        .and_then(|a| a.parse().ok())
    else {
        return;
    };
    let server_fd = (m.arg & 0xffff_ffff) as u32 as i32;
    let server_port = ((m.arg >> 32) & 0xffff) as u16;
    handle_packet(
        ctx,
        m.id.max(0) as usize,
        m.data.slice(2 + len..),
        peer,
        server_fd,
        server_port,
    );
}
