//! SWOOLE_PROCESS mode: the master owns the listening sockets, accepts on
//! its reactor threads and hands every new connection to a worker chosen by
//! `dispatch_mode`, over a Unix `SOCK_SEQPACKET` channel (`SCM_RIGHTS`).
//!
//! Process tree: the master forks the manager first, before it starts any
//! thread; the manager runs the supervisor of [`crate::engine::proc::supervisor`] (forks,
//! replaces, reloads and stops the workers and task workers). Only then does
//! the master build its multi-threaded runtime (`reactor_num` threads).
//!
//! Channels: the master listens on an abstract Unix address made before the
//! manager is forked, so every worker, including one the manager forks much
//! later, can reach it. A worker connects once `workerStart` returned and says
//! who it is (`Hello`); from then on it is a dispatch target. A worker that
//! drains shuts down its half of the channel; the master drops it from the
//! table and closes its end, and the worker reads every connection sent
//! before that close, then end-of-file. So a connection is never lost in a
//! channel during a reload. docs/internals.md explains why connections are
//! handed over rather than relayed byte by byte.

use std::io::{IoSlice, IoSliceMut};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener as StdListener};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::socket::{
    self, AddressFamily, Backlog, ControlMessage, ControlMessageOwned, MsgFlags, SockFlag,
    SockType, UnixAddr,
};
use std::rc::Rc;

use nix::sys::signal::Signal;
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;
use tokio::sync::Notify;

use crate::engine::config::ServerConfig;
use crate::engine::error::{Error, Result};
use crate::engine::hooks::Hooks;

/// Bytes of one master -> worker message (a connection) and of `Hello`.
const MSG_LEN: usize = 32;
/// How long a new connection may wait for a worker to take it.
const HANDOVER_TIMEOUT: Duration = Duration::from_secs(10);

/// The channel's abstract address; set in the master before the manager is
/// forked, inherited by every worker.
static CHANNEL_NAME: Mutex<Option<Vec<u8>>> = Mutex::new(None);

/// A descriptor owned elsewhere (the signal pipe), for `AsyncFd`.
struct RawFdRef(RawFd);

impl AsRawFd for RawFdRef {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

/// Registers an owned descriptor with the runtime.
fn watch<T: AsRawFd>(inner: T) -> std::io::Result<AsyncFd<T>> {
    // SAFETY: `inner` owns its descriptor (an OwnedFd or a std listener),
    // or is the signal pipe's `RawFdRef`, whose AsyncFd is dropped before
    // the pipe is closed; so the descriptor stays open and the same for the
    // AsyncFd's whole life.
    unsafe { AsyncFd::register(inner) }.map_err(|e| e.into_parts().1)
}

fn io_err(e: nix::Error) -> std::io::Error {
    std::io::Error::from_raw_os_error(e as i32)
}

/// Whether this process descends from a PROCESS-mode master.
pub fn is_process_mode() -> bool {
    CHANNEL_NAME.lock().map(|n| n.is_some()).unwrap_or(false)
}

/// In the master, before the manager is forked: the listening channel.
pub fn bind_channel() -> std::io::Result<OwnedFd> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let name = format!("rswoole.{}.{nanos}", std::process::id()).into_bytes();
    let fd = socket::socket(
        AddressFamily::Unix,
        SockType::SeqPacket,
        SockFlag::SOCK_CLOEXEC | SockFlag::SOCK_NONBLOCK,
        None,
    )
    .map_err(io_err)?;
    let addr = UnixAddr::new_abstract(&name).map_err(io_err)?;
    socket::bind(fd.as_raw_fd(), &addr).map_err(io_err)?;
    socket::listen(&fd, Backlog::new(1024).map_err(io_err)?).map_err(io_err)?;
    if let Ok(mut n) = CHANNEL_NAME.lock() {
        *n = Some(name);
    }
    if CLAIMS.load(Ordering::Relaxed) == 0 {
        match crate::engine::shared::shm_lock::map_shared(CLAIM_SLOTS * 8) {
            Ok(p) => CLAIMS.store(p as usize, Ordering::Relaxed),
            Err(e) => crate::rlog!(
                Warning,
                "no claim table, stuck workers keep their connections: {e}"
            ),
        }
    }
    Ok(fd)
}

/// Forgets the channel address (the server stopped).
pub fn clear_channel() {
    if let Ok(mut n) = CHANNEL_NAME.lock() {
        *n = None;
    }
}

// ---- claims: who serves a connection ---------------------------------------

/// Slots of the claim table (8 bytes each, one mapping shared by the master
/// and every worker; only the slots in use are ever touched).
const CLAIM_SLOTS: usize = 1 << 20;
/// A slot's value once the master took its offer back.
const WITHDRAWN: u64 = u64::MAX;

/// The claim table's address, mapped in the master before the manager is
/// forked (0: none, as in unit tests).
static CLAIMS: AtomicUsize = AtomicUsize::new(0);

/// Every hand-over carries a number that never repeats; its slot says
/// whether the connection is still offered, taken by the worker it was sent
/// to, or withdrawn by the master. The master withdraws a connection that
/// sat unread in a stuck worker's channel (or in a dead worker's) and hands
/// its own copy to another worker; when the stuck worker reads the stale
/// message later, its claim fails and it drops its descriptor without
/// touching the socket. One compare-and-swap on each side decides who
/// serves it, so a connection is never served twice nor lost.
fn claim_slot(conn: u64) -> Option<&'static AtomicU64> {
    let base = CLAIMS.load(Ordering::Relaxed);
    if base == 0 || conn == 0 {
        return None;
    }
    let i = (conn as usize) % CLAIM_SLOTS;
    // SAFETY: `base` is a CLAIM_SLOTS * 8 byte shared mapping that is never
    // unmapped (the process keeps it for its life), 8-byte aligned (page
    // aligned), and every access to it is atomic.
    Some(unsafe { &*(base as *const AtomicU64).add(i) })
}

fn offered(conn: u64) -> u64 {
    conn << 1
}

/// The master offers connection `conn` (before sending it).
fn offer(conn: u64) {
    if let Some(s) = claim_slot(conn) {
        s.store(offered(conn), Ordering::Release);
    }
}

/// A worker takes connection `conn`: false when the master withdrew it.
fn claim(conn: u64) -> bool {
    match claim_slot(conn) {
        Some(s) => s
            .compare_exchange(
                offered(conn),
                offered(conn) | 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok(),
        None => true,
    }
}

/// The master takes its offer of `conn` back: false when a worker took it.
fn withdraw(conn: u64) -> bool {
    claim_slot(conn).is_some_and(|s| {
        s.compare_exchange(
            offered(conn),
            WITHDRAWN,
            Ordering::AcqRel,
            Ordering::Acquire,
        )
        .is_ok()
    })
}

/// Whether the worker took `conn` (or the slot moved on).
fn taken(conn: u64) -> bool {
    claim_slot(conn).is_none_or(|s| s.load(Ordering::Acquire) != offered(conn))
}

// ---- the wire format ------------------------------------------------------

/// Master -> worker: which port the connection came in on, its peer and
/// its hand-over number (the claim).
fn encode_conn(port_index: usize, peer: SocketAddr, conn: u64) -> [u8; MSG_LEN] {
    let mut b = [0u8; MSG_LEN];
    b[24..32].copy_from_slice(&conn.to_le_bytes());
    b[0..4].copy_from_slice(&(port_index as u32).to_le_bytes());
    b[6..8].copy_from_slice(&peer.port().to_be_bytes());
    match peer.ip() {
        IpAddr::V4(ip) => {
            b[4] = 4;
            b[8..12].copy_from_slice(&ip.octets());
        }
        IpAddr::V6(ip) => {
            b[4] = 6;
            b[8..24].copy_from_slice(&ip.octets());
        }
    }
    b
}

fn decode_conn(b: &[u8]) -> Option<(usize, SocketAddr, u64)> {
    if b.len() < MSG_LEN {
        return None;
    }
    let index = u32::from_le_bytes(b[0..4].try_into().ok()?) as usize;
    let port = u16::from_be_bytes(b[6..8].try_into().ok()?);
    let ip = match b[4] {
        4 => IpAddr::V4(Ipv4Addr::new(b[8], b[9], b[10], b[11])),
        6 => {
            let o: [u8; 16] = b[8..24].try_into().ok()?;
            IpAddr::V6(Ipv6Addr::from(o))
        }
        _ => return None,
    };
    let conn = u64::from_le_bytes(b[24..32].try_into().ok()?);
    Some((index, SocketAddr::new(ip, port), conn))
}

/// Worker -> master, once: worker id, pid, stats slot (-1: none).
fn encode_hello(worker_id: i32, pid: i32, slot: i32) -> [u8; MSG_LEN] {
    let mut b = [0u8; MSG_LEN];
    b[0..4].copy_from_slice(&worker_id.to_le_bytes());
    b[4..8].copy_from_slice(&pid.to_le_bytes());
    b[8..12].copy_from_slice(&slot.to_le_bytes());
    b
}

fn decode_hello(b: &[u8]) -> Option<(i32, i32, i32)> {
    if b.len() < 12 {
        return None;
    }
    Some((
        i32::from_le_bytes(b[0..4].try_into().ok()?),
        i32::from_le_bytes(b[4..8].try_into().ok()?),
        i32::from_le_bytes(b[8..12].try_into().ok()?),
    ))
}

// ---- the master side -------------------------------------------------------

/// One connected worker.
struct Chan {
    fd: AsyncFd<OwnedFd>,
    worker_id: usize,
    pid: i32,
    slot: Option<usize>,
    /// `ms_since_start()` of the send that found the channel empty: the
    /// age of the oldest connection the worker may not have taken (0: none).
    behind_since: AtomicU64,
    /// Connections sent and not yet seen taken, oldest first.
    pending: Mutex<std::collections::VecDeque<Pending>>,
}

/// A connection in a worker's channel that the master may still withdraw.
struct Pending {
    conn: u64,
    index: usize,
    peer: SocketAddr,
    at: Instant,
}

impl Chan {
    /// True while a connection sent to this worker is still in its channel:
    /// a worker whose event loop runs takes each one at once (microseconds),
    /// so one left there means the worker is busy in PHP (a long
    /// synchronous handler, an endless loop). `SIOCOUTQ` on our end counts
    /// what the worker has not read.
    fn is_behind(&self) -> bool {
        let mut unread: libc::c_int = 0;
        // SAFETY: an ioctl on a descriptor we own, writing one int.
        let r = unsafe { libc::ioctl(self.fd.as_raw_fd(), libc::TIOCOUTQ, &mut unread) };
        r == 0 && unread > 0
    }

    /// `is_behind`, with the oldest connection still in the channel sent
    /// `patience` or more ago.
    fn is_stuck(&self, patience: Duration) -> bool {
        if !self.is_behind() {
            return false;
        }
        let since = self.behind_since.load(Ordering::Relaxed);
        since != 0 && ms_since_start().saturating_sub(since) >= patience.as_millis() as u64
    }

    /// Before a send: notes when the channel goes from empty to holding a
    /// connection (the age `is_stuck` measures).
    fn note_send(&self) {
        if !self.is_behind() {
            self.behind_since
                .store(ms_since_start().max(1), Ordering::Relaxed);
        }
    }
}

/// How long a connection may sit in a worker's channel before the worker
/// counts as stuck: a running worker takes one within microseconds, but a
/// loaded machine may not schedule it for a few milliseconds. Modes 1 and 4
/// promise an order (round robin, one worker per client address), so they
/// wait longer.
const STUCK_AFTER: Duration = Duration::from_millis(10);
const STUCK_AFTER_IP: Duration = Duration::from_millis(100);

fn ms_since_start() -> u64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_millis() as u64
}

/// Dispatch targets by worker id (the newest process of each id).
pub struct Table {
    chans: Mutex<Vec<Option<Arc<Chan>>>>,
    rr: AtomicUsize,
    /// Numbers the accepted connections for `dispatch_mode` 2: unlike the
    /// master's fd (closed after the hand-over, so the next accept reuses
    /// it and every connection went to one worker), it never repeats, as
    /// Swoole's session id.
    conns: AtomicUsize,
    changed: Notify,
    mode: u8,
    /// Channels gone from the table that still had connections pending.
    retired: Mutex<Vec<Arc<Chan>>>,
}

impl Table {
    pub fn new(worker_num: usize, dispatch_mode: u8) -> Arc<Table> {
        Arc::new(Table {
            retired: Mutex::new(Vec::new()),
            chans: Mutex::new(vec![None; worker_num.max(1)]),
            rr: AtomicUsize::new(0),
            conns: AtomicUsize::new(0),
            changed: Notify::new(),
            mode: dispatch_mode,
        })
    }

    fn insert(&self, c: Arc<Chan>) {
        if let Ok(mut t) = self.chans.lock() {
            if let Some(s) = t.get_mut(c.worker_id) {
                *s = Some(c);
            }
        }
        self.changed.notify_waiters();
    }

    /// Removes `c` if it is still the target for its worker id.
    fn remove(&self, c: &Arc<Chan>) {
        if let Ok(mut t) = self.chans.lock() {
            if let Some(s) = t.get_mut(c.worker_id) {
                if s.as_ref().is_some_and(|x| Arc::ptr_eq(x, c)) {
                    *s = None;
                }
            }
        }
    }

    /// A new connection's number, the key of `dispatch_mode` 2 and of its
    /// claim (never 0).
    fn next_conn(&self) -> usize {
        self.conns.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn retire(&self, c: Arc<Chan>) {
        let has = c.pending.lock().map(|p| !p.is_empty()).unwrap_or(false);
        if has {
            if let Ok(mut r) = self.retired.lock() {
                r.push(c);
            }
        }
    }

    /// Every channel that may hold pending connections.
    fn all_chans(&self) -> Vec<Arc<Chan>> {
        let mut v: Vec<Arc<Chan>> = self
            .chans
            .lock()
            .map(|t| t.iter().flatten().cloned().collect())
            .unwrap_or_default();
        if let Ok(mut r) = self.retired.lock() {
            r.retain(|c| c.pending.lock().map(|p| !p.is_empty()).unwrap_or(false));
            v.extend(r.iter().cloned());
        }
        v
    }

    /// The worker for a connection (`conn`: its number from `next_conn`, the
    /// key of mode 2; mode 4 hashes the client address).
    fn pick(&self, conn: usize, peer: &SocketAddr) -> Option<Arc<Chan>> {
        let t = self.chans.lock().ok()?;
        let n = t.len();
        let start = match self.mode {
            1 | 3 | 8 => self.rr.fetch_add(1, Ordering::Relaxed) % n,
            4 => ip_hash(&peer.ip()) % n,
            _ => conn % n,
        };
        let ring = (0..n).filter_map(|k| t[(start + k) % n].as_ref());
        if matches!(self.mode, 3 | 8) {
            // The first idle worker, else the least busy one; a worker
            // that has not taken its last connection yet counts as busiest.
            return ring
                .min_by_key(|c| {
                    let load = c
                        .slot
                        .and_then(crate::engine::shared::stats::slot_load)
                        .map(|(busy, open)| (busy.min(1), busy, open))
                        .unwrap_or((0, 0, 0));
                    (c.is_stuck(STUCK_AFTER), load)
                })
                .cloned();
        }
        // The worker the mode names, unless a connection sent to it has sat
        // in its channel for `STUCK_AFTER` (it is stuck in PHP: a loop, a
        // blocking call): then the next one in the ring that is not. When
        // all are, the named one (its channel queues the connection).
        // Modes 1 and 4 promise an order (round robin, one worker per
        // address): a burst of connections must not look like a stall.
        let patience = if matches!(self.mode, 1 | 4) {
            STUCK_AFTER_IP
        } else {
            STUCK_AFTER
        };
        let mut ring = ring.peekable();
        let first = ring.peek().cloned().cloned();
        ring.find(|c| !c.is_stuck(patience)).cloned().or(first)
    }
}

fn ip_hash(ip: &IpAddr) -> usize {
    // FNV-1a: stable across processes and runs, unlike RandomState.
    let bytes: Vec<u8> = match ip {
        IpAddr::V4(v) => v.octets().to_vec(),
        IpAddr::V6(v) => v.octets().to_vec(),
    };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as usize
}

/// Accepts workers on the channel listener until the task is dropped.
pub async fn accept_workers(listener: OwnedFd, table: Arc<Table>) {
    let l = match watch(listener) {
        Ok(l) => l,
        Err(e) => {
            crate::rlog!(Error, "cannot watch the worker channel: {e}");
            return;
        }
    };
    loop {
        let r = l
            .async_io(Interest::READABLE, |fd| {
                socket::accept4(
                    fd.as_raw_fd(),
                    SockFlag::SOCK_CLOEXEC | SockFlag::SOCK_NONBLOCK,
                )
                .map_err(io_err)
            })
            .await;
        match r {
            Ok(fd) => {
                // SAFETY: accept4 returned a new descriptor that nothing else owns.
                let fd = unsafe { OwnedFd::from_raw_fd(fd) };
                tokio::spawn(serve_worker(fd, table.clone()));
            }
            Err(e) => {
                crate::rlog!(Warning, "worker channel accept(): {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// One worker's channel: registers it on `Hello`, drops it at end-of-file.
async fn serve_worker(fd: OwnedFd, table: Arc<Table>) {
    let Ok(afd) = watch(fd) else { return };
    let mut buf = [0u8; MSG_LEN];
    let hello = afd
        .async_io(Interest::READABLE, |fd| {
            socket::recv(fd.as_raw_fd(), &mut buf, MsgFlags::empty()).map_err(io_err)
        })
        .await;
    let Some((id, pid, slot)) = hello.ok().and_then(|n| decode_hello(&buf[..n])) else {
        return;
    };
    if id == GIVE_BACK {
        take_back(afd, table).await;
        return;
    }
    crate::engine::proc::held::watch_worker(pid);
    let chan = Arc::new(Chan {
        fd: afd,
        worker_id: id.max(0) as usize,
        pid,
        slot: usize::try_from(slot).ok(),
        behind_since: AtomicU64::new(0),
        pending: Mutex::new(Default::default()),
    });
    crate::rlog!(
        Debug,
        "worker#{} (pid {}) takes connections",
        chan.worker_id,
        chan.pid
    );
    table.insert(chan.clone());
    // The worker sends nothing more: any read result ends its turn.
    let _ = chan
        .fd
        .async_io(Interest::READABLE, |fd| {
            socket::recv(fd.as_raw_fd(), &mut buf, MsgFlags::empty()).map_err(io_err)
        })
        .await;
    table.remove(&chan);
    // What it did not read is rescued by `rescue_loop` (a worker that died
    // never will; a draining one claims them first, or loses them to
    // another worker).
    table.retire(chan);
    table.changed.notify_waiters();
}

/// In place of a worker id in `Hello`: the channel carries connections a
/// draining worker gives back (`give_back`), not a dispatch target.
const GIVE_BACK: i32 = -2;

/// A give-back channel: each message names a connection (port index, peer)
/// whose worker is draining and left it idle; our copy goes to another
/// worker, with whatever the client sent meanwhile still unread.
async fn take_back(afd: AsyncFd<OwnedFd>, table: Arc<Table>) {
    let mut buf = [0u8; MSG_LEN];
    loop {
        let r = afd
            .async_io(Interest::READABLE, |fd| {
                socket::recv(fd.as_raw_fd(), &mut buf, MsgFlags::empty()).map_err(io_err)
            })
            .await;
        let n = match r {
            Ok(n) if n > 0 => n,
            _ => return,
        };
        let Some((index, peer, _)) = decode_conn(&buf[..n]) else {
            continue;
        };
        // None: the client left meanwhile (the copy was dropped).
        let Some(sock) = crate::engine::proc::held::take(index, peer) else {
            crate::rlog!(
                Debug,
                "connection from {peer} given back, but its copy is gone"
            );
            continue;
        };
        let t = table.clone();
        tokio::spawn(async move {
            hand_over(&t, std::net::TcpStream::from(sock), peer, index).await;
        });
    }
}

/// Hands `stream` to a worker; closes it if none takes it in time.
async fn hand_over(table: &Table, stream: std::net::TcpStream, peer: SocketAddr, index: usize) {
    let fd = stream.as_raw_fd();
    let conn = table.next_conn();
    let msg = encode_conn(index, peer, conn as u64);
    let deadline = Instant::now() + HANDOVER_TIMEOUT;
    loop {
        if let Some(c) = table.pick(conn, &peer) {
            c.note_send();
            offer(conn as u64);
            // The master's copy is kept (`held`) BEFORE the worker can see
            // the connection: a worker that serves it and gives it back
            // (`take_back`) at once must find the copy there, or the
            // connection would be lost with its next request.
            if crate::engine::proc::held::active() {
                match stream.try_clone() {
                    Ok(copy) => {
                        crate::engine::proc::held::keep(index, peer, c.pid, OwnedFd::from(copy))
                    }
                    Err(e) => crate::rlog!(Debug, "connection from {peer}: no copy kept: {e}"),
                }
            }
            let fds = [fd];
            let r =
                c.fd.async_io(Interest::WRITABLE, |ch| {
                    socket::sendmsg::<()>(
                        ch.as_raw_fd(),
                        &[IoSlice::new(&msg)],
                        &[ControlMessage::ScmRights(&fds)],
                        MsgFlags::MSG_NOSIGNAL | MsgFlags::MSG_DONTWAIT,
                        None,
                    )
                    .map_err(io_err)
                })
                .await;
            match r {
                // The worker holds its own copy now; ours is kept (above),
                // so the master can still answer if the worker dies.
                Ok(_) => {
                    if crate::engine::proc::held::active() && claim_slot(conn as u64).is_some() {
                        if let Ok(mut p) = c.pending.lock() {
                            p.push_back(Pending {
                                conn: conn as u64,
                                index,
                                peer,
                                at: Instant::now(),
                            });
                        }
                    }
                    return;
                }
                Err(e) => {
                    crate::rlog!(Debug, "worker#{} (pid {}) channel: {e}", c.worker_id, c.pid);
                    table.remove(&c);
                    continue;
                }
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            crate::rlog!(
                Warning,
                "no worker took the connection from {peer} within {}s, closing it",
                HANDOVER_TIMEOUT.as_secs()
            );
            drop(crate::engine::proc::held::take(index, peer));
            return;
        }
        let _ = tokio::time::timeout(
            left.min(Duration::from_millis(20)),
            table.changed.notified(),
        )
        .await;
    }
}

/// How long a connection may sit unread in a worker's channel before the
/// master gives it to another worker.
const RESCUE_AFTER: Duration = Duration::from_millis(100);

/// Gives the connections that sit unread in a stuck (or dead) worker's
/// channel to other workers, until the task is dropped: each is withdrawn
/// (its claim) and the master's own copy handed over again.
async fn rescue_loop(table: Arc<Table>) {
    let mut tick = tokio::time::interval(Duration::from_millis(25));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        for c in table.all_chans() {
            let mut moved = Vec::new();
            if let Ok(mut p) = c.pending.lock() {
                while let Some(front) = p.front() {
                    if taken(front.conn) {
                        p.pop_front();
                        continue;
                    }
                    if front.at.elapsed() < RESCUE_AFTER {
                        break;
                    }
                    // Only when another worker would take it now.
                    let alive = table.chans.lock().is_ok_and(|t| {
                        t.iter()
                            .flatten()
                            .any(|o| !Arc::ptr_eq(o, &c) && !o.is_stuck(STUCK_AFTER))
                    });
                    if !alive {
                        break;
                    }
                    if let Some(f) = p.pop_front() {
                        if withdraw(f.conn) {
                            moved.push((f.index, f.peer));
                        }
                    }
                }
            }
            for (index, peer) in moved {
                let Some(sock) = crate::engine::proc::held::take(index, peer) else {
                    continue;
                };
                crate::rlog!(
                    Debug,
                    "worker#{} (pid {}) did not take the connection from {peer}: handing it to another worker",
                    c.worker_id,
                    c.pid
                );
                hand_over(&table, std::net::TcpStream::from(sock), peer, index).await;
            }
        }
    }
}

/// Accepts on one TCP port and dispatches, until the task is dropped.
/// Several of these run on one listener, one per reactor thread.
pub async fn accept_loop(listener: Arc<AsyncFd<StdListener>>, index: usize, table: Arc<Table>) {
    loop {
        let r = listener
            .async_io(Interest::READABLE, crate::engine::net::listener::accept_any)
            .await;
        match r {
            Ok((stream, peer)) => hand_over(&table, stream, peer, index).await,
            Err(e) => {
                crate::rlog!(Warning, "accept() failed: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// The master's life in PROCESS mode, after the manager was forked: the
/// reactor threads accept and dispatch; this thread (PHP's) handles signals,
/// fires `beforeShutdown` and runs the PHP timers and coroutines of the
/// master (`onStart`'s). Returns once the manager has exited.
pub fn run_master(
    cfg: &ServerConfig,
    ports: Vec<(usize, StdListener)>,
    channel: OwnedFd,
    manager: Pid,
    hooks: Rc<dyn Hooks>,
) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cfg.reactor_num.max(1))
        .thread_name("rswoole-reactor")
        .enable_all()
        .build()
        .map_err(|e| Error::process("reactor threads", e))?;
    let table = Table::new(cfg.worker_num, cfg.dispatch_mode);
    let reactors = cfg.reactor_num.max(1);
    let max_wait = cfg.max_wait_time;
    // On the process's LocalSet: timers and coroutines started in `onStart`
    // (Laravel Octane's tick and request watchdog) run on this thread while
    // the accept loops run on the reactor threads.
    if let Err(e) = crate::engine::proc::held::start() {
        crate::rlog!(
            Warning,
            "cannot keep the master's copies of connections: {e}"
        );
    }
    let r = crate::engine::rt::event_loop::block_on(&rt, async move {
        let mut tasks = vec![
            tokio::spawn(accept_workers(channel, table.clone())),
            tokio::spawn(rescue_loop(table.clone())),
        ];
        let mut accepting = Vec::new();
        for (index, l) in ports {
            l.set_nonblocking(true)
                .map_err(|e| Error::process("set_nonblocking", e))?;
            let l = Arc::new(watch(l).map_err(|e| Error::process("reactor", e))?);
            for _ in 0..reactors {
                accepting.push(tokio::spawn(accept_loop(l.clone(), index, table.clone())));
            }
        }
        // Our own handlers (replacing PHP's zend_signal ones, which re-raise
        // with the default action) wake this loop through a pipe.
        // A signal the script took with `Process::signal()` in onStart
        // stays with its callback.
        let user = |sig: libc::c_int| crate::engine::proc::user::is_listened(sig);
        let rd = crate::engine::sys::signal::master_signal_pipe(&user)
            .map_err(|e| Error::process("signal handlers", e))?;
        let user_rd = crate::engine::proc::user::listen_fd()
            .map(|fd| watch(RawFdRef(fd)))
            .transpose()
            .map_err(|e| Error::process("signal pipe", e))?;
        // A SIGTERM held since onStart (`$server->shutdown()` there) is
        // delivered now, to our handler.
        hold_stop_signals(false);
        let wake = watch(RawFdRef(rd)).map_err(|e| Error::process("signal pipe", e))?;
        let forward = |s: Signal| {
            let _ = nix::sys::signal::kill(manager, s);
        };
        let mut stopping: Option<Instant> = None;
        loop {
            tokio::select! {
                r = wake.readable() => {
                    if let Ok(mut g) = r {
                        g.clear_ready();
                    }
                }
                r = async {
                    match &user_rd {
                        Some(u) => u.readable().await.map(|mut g| g.clear_ready()),
                        None => std::future::pending().await,
                    }
                } => {
                    if r.is_ok() {
                        crate::engine::proc::user::dispatch_now();
                    }
                }
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
            let got = crate::engine::sys::signal::take_received(rd);
            if got.term {
                stop(&mut stopping, &mut accepting, &hooks, manager);
            }
            if got.reload {
                forward(Signal::SIGUSR1);
            }
            if got.reload_tasks {
                forward(Signal::SIGUSR2);
            }
            if got.reopen {
                let _ = crate::engine::log::reopen();
                // SAFETY: kill() with the manager's pid; no memory involved.
                unsafe { libc::kill(manager.as_raw(), libc::SIGRTMIN()) };
            }
            match waitpid(manager, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => {}
                Ok(status) => {
                    if stopping.is_none() {
                        crate::rlog!(
                            Error,
                            "the manager exited ({status:?}), stopping the server"
                        );
                    }
                    break;
                }
                Err(nix::errno::Errno::EINTR) => {}
                Err(e) => {
                    crate::rlog!(Error, "waitpid(manager): {e}");
                    break;
                }
            }
            // The manager has its own deadline; this one only guards
            // against a manager that hangs.
            if stopping.is_some_and(|t| t.elapsed() > max_wait + Duration::from_secs(5)) {
                forward(Signal::SIGKILL);
            }
        }
        for t in accepting.into_iter().chain(tasks.drain(..)) {
            t.abort();
        }
        drop(wake);
        drop(user_rd);
        crate::engine::sys::signal::close_master_signal_pipe(rd, &user);
        Ok(())
    });
    rt.shutdown_timeout(Duration::from_secs(1));
    r
}

/// SIGTERM/SIGINT in the master: `beforeShutdown`, stop accepting, tell the
/// manager. A second one is passed on (the manager then kills the workers).
fn stop(
    stopping: &mut Option<Instant>,
    accepting: &mut Vec<tokio::task::JoinHandle<()>>,
    hooks: &Rc<dyn Hooks>,
    manager: Pid,
) {
    if stopping.is_none() {
        hooks.on_before_shutdown();
        *stopping = Some(Instant::now());
        for t in accepting.drain(..) {
            t.abort();
        }
    }
    let _ = nix::sys::signal::kill(manager, Signal::SIGTERM);
}

// ---- the worker side -------------------------------------------------------

/// In a worker: connects to the master and says who it is. Blocking, once.
pub fn connect(worker_id: i32) -> std::io::Result<OwnedFd> {
    let fd = open_channel(worker_id)?;
    let flags = nix::fcntl::fcntl(fd.as_raw_fd(), nix::fcntl::FcntlArg::F_GETFL).map_err(io_err)?;
    let flags = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_NONBLOCK;
    nix::fcntl::fcntl(fd.as_raw_fd(), nix::fcntl::FcntlArg::F_SETFL(flags)).map_err(io_err)?;
    Ok(fd)
}

/// A blocking connection to the master's channel listener, `Hello` sent.
fn open_channel(worker_id: i32) -> std::io::Result<OwnedFd> {
    let name = CHANNEL_NAME
        .lock()
        .ok()
        .and_then(|n| n.clone())
        .ok_or_else(|| std::io::Error::other("not in SWOOLE_PROCESS mode"))?;
    let fd = socket::socket(
        AddressFamily::Unix,
        SockType::SeqPacket,
        SockFlag::SOCK_CLOEXEC,
        None,
    )
    .map_err(io_err)?;
    let addr = UnixAddr::new_abstract(&name).map_err(io_err)?;
    socket::connect(fd.as_raw_fd(), &addr).map_err(io_err)?;
    let slot = crate::engine::shared::stats::my_slot_index().map_or(-1, |s| s as i32);
    let hello = encode_hello(worker_id, std::process::id() as i32, slot);
    socket::send(fd.as_raw_fd(), &hello, MsgFlags::MSG_NOSIGNAL).map_err(io_err)?;
    Ok(fd)
}

thread_local! {
    /// A draining worker's give-back channel, opened on first use.
    static BACK: Box<std::cell::RefCell<Option<OwnedFd>>> = Box::new(std::cell::RefCell::new(None));
}

/// In a draining worker: gives the idle connection accepted on port `index`
/// from `peer` back to the master, which still holds a copy of its socket
/// and hands it to another worker. False when the master could not be told
/// (the caller has already dropped its descriptors: the connection then
/// ends when the master drops its copy).
pub fn give_back(index: usize, peer: SocketAddr) -> bool {
    let msg = encode_conn(index, peer, 0);
    BACK.with(|b| {
        let mut b = b.borrow_mut();
        if b.is_none() {
            *b = open_channel(GIVE_BACK).ok();
        }
        let Some(fd) = b.as_ref() else { return false };
        socket::send(fd.as_raw_fd(), &msg, MsgFlags::MSG_NOSIGNAL).is_ok()
    })
}

/// `give_back` of this worker's connection `fd`, from where its session
/// says it came (`None`: it has none). Our duplicate goes without a
/// shutdown: the master's copy keeps the socket open, and the master
/// hands it, with whatever the client sent meanwhile, to another worker.
pub fn give_back_conn(fd: i64) -> Option<bool> {
    let s = crate::engine::shared::session::get(fd)?;
    crate::engine::proc::held::forget(fd);
    let sent = give_back(s.port_index, s.peer);
    crate::rlog!(
        Debug,
        "connection {fd} from {} handed back to the master ({})",
        s.peer,
        if sent { "sent" } else { "failed" }
    );
    Some(sent)
}

/// What a worker reads from its channel.
pub enum Incoming {
    /// A connection accepted on port `index`.
    Conn(std::net::TcpStream, SocketAddr, usize),
    /// The master closed the channel: nothing more will come.
    End,
}

/// The worker's end of its channel.
pub struct WorkerChannel {
    fd: AsyncFd<OwnedFd>,
    cmsg: Vec<u8>,
}

impl WorkerChannel {
    pub fn new(fd: OwnedFd) -> std::io::Result<WorkerChannel> {
        Ok(WorkerChannel {
            fd: watch(fd)?,
            cmsg: nix::cmsg_space!([RawFd; 4]),
        })
    }

    /// Tells the master to send no more connections (drain). Connections
    /// already sent are still read by [`Self::next`], then `End`.
    pub fn stop_taking(&self) {
        let _ = socket::shutdown(self.fd.as_raw_fd(), socket::Shutdown::Write);
    }

    /// The next connection, or `End`.
    pub async fn next(&mut self) -> Incoming {
        loop {
            let mut buf = [0u8; MSG_LEN];
            let cmsg = &mut self.cmsg;
            let r = self
                .fd
                .async_io(Interest::READABLE, |ch| {
                    let mut iov = [IoSliceMut::new(&mut buf)];
                    let m = socket::recvmsg::<()>(
                        ch.as_raw_fd(),
                        &mut iov,
                        Some(&mut *cmsg),
                        MsgFlags::MSG_CMSG_CLOEXEC | MsgFlags::MSG_DONTWAIT,
                    )
                    .map_err(io_err)?;
                    let mut got = Vec::new();
                    if let Ok(cms) = m.cmsgs() {
                        for c in cms {
                            if let ControlMessageOwned::ScmRights(fds) = c {
                                got.extend(fds);
                            }
                        }
                    }
                    Ok((m.bytes, got))
                })
                .await;
            let (n, fds) = match r {
                Ok(x) => x,
                Err(e) => {
                    crate::rlog!(Warning, "master channel: {e}");
                    return Incoming::End;
                }
            };
            // SAFETY: every descriptor received with SCM_RIGHTS is new in
            // this process and owned by nothing else.
            let mut owned: Vec<OwnedFd> = fds
                .into_iter()
                .map(|f| unsafe { OwnedFd::from_raw_fd(f) })
                .collect();
            if n == 0 && owned.is_empty() {
                return Incoming::End;
            }
            let Some((index, peer, conn)) = decode_conn(&buf[..n]) else {
                continue;
            };
            let Some(fd) = owned.pop() else { continue };
            if !claim(conn) {
                // The master gave it to another worker while this one was
                // busy: drop our descriptor only (no shutdown).
                crate::rlog!(Debug, "connection from {peer} was handed to another worker");
                continue;
            }
            return Incoming::Conn(std::net::TcpStream::from(fd), peer, index);
        }
    }
}

/// Blocks (`hold`) or unblocks SIGTERM and SIGINT for the calling thread;
/// threads started while they are blocked keep them blocked, so a held
/// signal goes to the thread that unblocks them.
pub fn hold_stop_signals(hold: bool) {
    let mut set = nix::sys::signal::SigSet::empty();
    set.add(Signal::SIGTERM);
    set.add(Signal::SIGINT);
    let how = if hold {
        nix::sys::signal::SigmaskHow::SIG_BLOCK
    } else {
        nix::sys::signal::SigmaskHow::SIG_UNBLOCK
    };
    let _ = nix::sys::signal::pthread_sigmask(how, Some(&set), None);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conn_message_roundtrip() {
        for peer in ["127.0.0.1:4567", "[::1]:80", "[2001:db8::7]:65535"] {
            let peer: SocketAddr = peer.parse().expect("addr");
            let b = encode_conn(3, peer, 1 << 40);
            assert_eq!(decode_conn(&b), Some((3, peer, 1 << 40)));
        }
        assert_eq!(decode_hello(&encode_hello(2, 999, -1)), Some((2, 999, -1)));
    }

    #[test]
    fn a_claim_is_won_once() {
        if CLAIMS.load(Ordering::Relaxed) == 0 {
            let p = crate::engine::shared::shm_lock::map_shared(CLAIM_SLOTS * 8).expect("map");
            CLAIMS.store(p as usize, Ordering::Relaxed);
        }
        // Taken first: the master cannot withdraw it.
        offer(7);
        assert!(!taken(7));
        assert!(claim(7));
        assert!(taken(7));
        assert!(!withdraw(7));
        // Withdrawn first: the worker's late claim fails.
        offer(8);
        assert!(withdraw(8));
        assert!(!claim(8));
        // A slot reused by a later number: the old claim fails.
        let later = 9 + CLAIM_SLOTS as u64;
        offer(9);
        offer(later);
        assert!(!claim(9));
        assert!(claim(later));
    }

    #[test]
    fn dispatch_by_ip_is_stable_and_spreads() {
        let a = ip_hash(&"10.0.0.1".parse().expect("ip"));
        assert_eq!(a, ip_hash(&"10.0.0.1".parse().expect("ip")));
        let spread: std::collections::HashSet<usize> = (1..=40u8)
            .map(|i| ip_hash(&IpAddr::V4(Ipv4Addr::new(10, 0, 0, i))) % 4)
            .collect();
        assert_eq!(spread.len(), 4);
    }

    /// A connection handed over a channel arrives with its peer and port,
    /// and a drained channel ends after what was already sent.
    #[tokio::test]
    async fn hand_over_and_drain() {
        let listener = bind_channel().expect("bind");
        let table = Table::new(1, 2);
        let acc = tokio::spawn(accept_workers(listener, table.clone()));
        let fd = tokio::task::spawn_blocking(|| connect(0))
            .await
            .expect("join")
            .expect("connect");
        let mut ch = WorkerChannel::new(fd).expect("channel");
        // Wait until the master registered the worker.
        for _ in 0..200 {
            if table.chans.lock().map(|t| t[0].is_some()).unwrap_or(false) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let tcp = StdListener::bind("127.0.0.1:0").expect("tcp");
        let addr = tcp.local_addr().expect("addr");
        let client = std::net::TcpStream::connect(addr).expect("client");
        let (server_side, peer) = tcp.accept().expect("accept");
        hand_over(&table, server_side, peer, 5).await;
        ch.stop_taking();
        match ch.next().await {
            Incoming::Conn(s, p, i) => {
                assert_eq!((p, i), (peer, 5));
                assert_eq!(
                    s.peer_addr().expect("peer"),
                    client.local_addr().expect("local")
                );
            }
            Incoming::End => panic!("connection lost"),
        }
        assert!(matches!(ch.next().await, Incoming::End));
        acc.abort();
        clear_channel();
    }
}
