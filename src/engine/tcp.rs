//! Raw TCP connections (`Swoole\Server`'s `connect`/`receive`/`close`) and
//! UDP ports (`packet`) in a worker, plus the per-worker connection table
//! behind `send()`, `close()`, `exists()`, `pause()`/`resume()`, `protect()`
//! and the heartbeat.
//!
//! Each connection is one task on the worker's `LocalSet`. It reads, cuts
//! the stream into messages (`framing`), fires `receive` for each, and
//! executes the commands other code queued for it (`Data`, `Close`, ...) in
//! order, so `send()` then `close()` writes every byte before the FIN. A
//! command for a connection another worker owns travels there over IPC.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use super::config::PortOptions;
use super::framing::{self, FrameError};
use super::hooks::Outcome;
use super::ipc;
use super::outflow::{Limits, Outflow};
use super::session;
use super::stats;
use super::tls::NetStream;
use super::worker::WorkerCtx;

enum Cmd {
    Data(Bytes),
    Close { reset: bool },
    Pause,
    Resume,
}

struct Conn {
    tx: mpsc::UnboundedSender<Cmd>,
    /// Bytes queued and not yet written (`socket_buffer_size`).
    flow: Rc<Outflow>,
    port: usize,
    last: Cell<Instant>,
    protected: Cell<bool>,
}

#[derive(Default)]
struct Tables {
    conns: HashMap<i64, Rc<Conn>>,
    /// This worker's UDP sockets: (server socket fd, socket).
    udp: Vec<(i32, Rc<UdpSocket>)>,
    /// This worker's unix datagram sockets (`SWOOLE_SOCK_UNIX_DGRAM`).
    unix_dgram: Vec<(i32, Rc<tokio::net::UnixDatagram>)>,
}

thread_local! {
    /// Boxed: the dlopen()ed extension has little static TLS room.
    static T: Box<RefCell<Option<Box<Tables>>>> = Box::new(RefCell::new(None));
}

fn with<R>(f: impl FnOnce(&mut Tables) -> R) -> R {
    T.with(|t| f(t.borrow_mut().get_or_insert_with(Default::default)))
}

fn local(fd: i64) -> Option<Rc<Conn>> {
    with(|t| t.conns.get(&fd).cloned())
}

/// Queues `data` on connection `fd` (here or in its owner worker). False
/// when no such connection exists, or when a local connection's output
/// buffer is full: the bytes are dropped with Swoole's overflow warning
/// (what the owner does with a send routed to it from another worker).
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
    let Some(c) = local(fd) else {
        return Ok(route(fd, ipc::Kind::Send, 0, data));
    };
    if c.flow.is_closed() {
        return Ok(false);
    }
    if !c.flow.has_room() {
        return Err(c.flow.clone());
    }
    let n = data.len();
    let ok = c.tx.send(Cmd::Data(data)).is_ok();
    if ok {
        c.flow.add(n);
    }
    Ok(ok)
}

/// Closes `fd` after what was queued on it (`reset`: at once, with an RST).
pub fn close(fd: i64, reset: bool) -> bool {
    if let Some(c) = local(fd) {
        return c.tx.send(Cmd::Close { reset }).is_ok();
    }
    route(fd, ipc::Kind::Close, reset as i64, Bytes::new())
}

/// A command for a connection another worker owns ("ours" by the table but
/// not in our map means it is closing: false).
fn route(fd: i64, kind: ipc::Kind, arg: i64, data: Bytes) -> bool {
    session::get(fd).is_some_and(|s| ipc::to_owner(s.worker, kind, fd, arg, data))
}

/// True while `fd` is open (in any worker).
pub fn exists(fd: i64) -> bool {
    local(fd).is_some() || session::get(fd).is_some()
}

/// The port a local connection came in on.
pub fn port_of(fd: i64) -> Option<usize> {
    local(fd).map(|c| c.port)
}

/// `pause()`/`resume()`: stop or restart reading from a local connection.
pub fn set_paused(fd: i64, paused: bool) -> bool {
    match local(fd) {
        Some(c) => {
            c.tx.send(if paused { Cmd::Pause } else { Cmd::Resume })
                .is_ok()
        }
        None => false,
    }
}

/// `protect()`: the heartbeat leaves this connection alone.
pub fn protect(fd: i64, on: bool) -> bool {
    match local(fd) {
        Some(c) => {
            c.protected.set(on);
            true
        }
        None => false,
    }
}

/// Connections of this worker silent for `idle` or longer (not protected);
/// closed when `close_them`. `$server->heartbeat()` and the heartbeat task.
pub fn idle_connections(idle: Duration, close_them: bool) -> Vec<i64> {
    let now = Instant::now();
    let idle_ones: Vec<(i64, Rc<Conn>)> = with(|t| {
        t.conns
            .iter()
            .filter(|(_, c)| !c.protected.get() && now.duration_since(c.last.get()) >= idle)
            .map(|(fd, c)| (*fd, c.clone()))
            .collect()
    });
    let mut fds = Vec::with_capacity(idle_ones.len());
    for (fd, c) in idle_ones {
        if close_them {
            let _ = c.tx.send(Cmd::Close { reset: false });
        }
        fds.push(fd);
    }
    fds.sort_unstable();
    fds
}

/// Closes idle connections every `interval` (`heartbeat_check_interval`).
pub async fn heartbeat(interval: Duration, idle: Duration) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        for fd in idle_connections(idle, true) {
            crate::rlog!(Debug, "heartbeat: closing idle connection {fd}");
        }
    }
}

/// Serves one raw TCP connection until it closes.
pub async fn serve_conn(
    stream: NetStream,
    fd: i64,
    port: usize,
    opts: Rc<PortOptions>,
    ctx: Rc<WorkerCtx>,
) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let conn = Rc::new(Conn {
        tx,
        flow: Outflow::new(fd, Limits::from_config(&ctx.cfg)),
        port,
        last: Cell::new(Instant::now()),
        protected: Cell::new(false),
    });
    with(|t| t.conns.insert(fd, conn.clone()));
    let reactor = ctx.id as i32;
    if let Outcome::Fatal(code) = ctx.hooks.on_connect(fd, reactor, port) {
        ctx.poison(code);
    }
    let (aborted, _reset) = match stream {
        NetStream::Plain(stream) => {
            let (mut rd, mut wr) = stream.into_split();
            let r = pump(&mut rd, &mut wr, &mut rx, &conn, fd, port, &opts, &ctx).await;
            // Dropping the write half alone would send a FIN; put the halves
            // back together so a reset closes with an RST only.
            if let Ok(stream) = rd.reunite(wr) {
                if r.1 {
                    let _ = socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO));
                }
                drop(stream);
            }
            r
        }
        tls => {
            let (mut rd, mut wr) = tokio::io::split(tls);
            let r = pump(&mut rd, &mut wr, &mut rx, &conn, fd, port, &opts, &ctx).await;
            let stream = rd.unsplit(wr);
            if r.1 {
                let _ = socket2::SockRef::from(stream.tcp()).set_linger(Some(Duration::ZERO));
            }
            drop(stream);
            r
        }
    };
    // No more commands: `send()` from onClose on fails.
    rx.close();
    conn.flow.close();
    if let Outcome::Fatal(code) = ctx.hooks.on_close(fd, reactor, port) {
        ctx.poison(code);
    }
    with(|t| t.conns.remove(&fd));
    session::close(fd);
    stats::on_close(aborted);
    ctx.conn_closed();
}

/// Reads and frames `rd`, runs the connection's commands on `wr`, until
/// either side ends it; `(aborted, reset)`.
#[allow(clippy::too_many_arguments)]
async fn pump<R, W>(
    rd: &mut R,
    wr: &mut W,
    rx: &mut mpsc::UnboundedReceiver<Cmd>,
    conn: &Conn,
    fd: i64,
    port: usize,
    opts: &PortOptions,
    ctx: &WorkerCtx,
) -> (bool, bool)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let reactor = ctx.id as i32;
    let mut shutdown = ctx.shutdown.subscribe();
    let mut buf = BytesMut::with_capacity(64 * 1024);
    let mut frames = Vec::new();
    let mut paused = false;
    let mut aborted = false;
    let mut reset = false;
    let mut draining = *shutdown.borrow();
    while !draining {
        if buf.capacity() - buf.len() < 4096 {
            buf.reserve(64 * 1024);
        }
        tokio::select! {
            r = rd.read_buf(&mut buf), if !paused => match r {
                Ok(0) => break,
                Ok(n) => {
                    stats::on_recv(n);
                    conn.last.set(Instant::now());
                    session::touch(fd);
                    let r = framing::take_frames(&opts.framing, &mut buf, opts.package_max_length, &mut frames);
                    for f in frames.drain(..) {
                        if let Outcome::Fatal(code) = ctx.hooks.on_receive(fd, reactor, port, f) {
                            ctx.poison(code);
                        }
                    }
                    if let Err(e) = r {
                        match e {
                            FrameError::TooLarge(n) => crate::rlog!(
                                Warning,
                                "Server::onReceive(): connection#{fd} sent a package of {n} bytes, more than package_max_length[{}]: closing it",
                                opts.package_max_length
                            ),
                            FrameError::BadLength => crate::rlog!(
                                Warning,
                                "Server::onReceive(): connection#{fd} sent an invalid package length: closing it"
                            ),
                        }
                        aborted = true;
                        break;
                    }
                }
                Err(_) => {
                    aborted = true;
                    break;
                }
            },
            cmd = rx.recv() => match cmd {
                Some(Cmd::Data(b)) => {
                    let written = wr.write_all(&b).await;
                    conn.flow.sent(b.len());
                    if written.is_err() {
                        aborted = true;
                        break;
                    }
                    stats::on_send(b.len());
                }
                Some(Cmd::Close { reset: r }) => {
                    reset = r;
                    break;
                }
                Some(Cmd::Pause) => paused = true,
                Some(Cmd::Resume) => paused = false,
                None => break,
            },
            r = shutdown.changed() => {
                draining = r.is_err() || *shutdown.borrow();
            }
        }
    }
    if !reset {
        // FIN after everything queued was written.
        let _ = wr.shutdown().await;
    }
    (aborted, reset)
}

/// Receives datagrams on a UDP port until the task is dropped.
pub async fn serve_udp(sock: Rc<UdpSocket>, port: usize, ctx: Rc<WorkerCtx>) {
    let server_fd = sock.as_raw_fd();
    let server_port = sock.local_addr().map(|a| a.port()).unwrap_or(0);
    with(|t| t.udp.push((server_fd, sock.clone())));
    let mut buf = vec![0u8; 65536];
    loop {
        match sock.recv_from(&mut buf).await {
            Ok((n, peer)) => {
                stats::on_recv(n);
                let data = Bytes::copy_from_slice(&buf[..n]);
                if let Outcome::Fatal(code) =
                    ctx.hooks
                        .on_packet(port, data, peer, server_fd, server_port)
                {
                    ctx.poison(code);
                }
            }
            Err(e) => {
                crate::rlog!(Warning, "recvfrom() on UDP port {server_port}: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// `sendto()`: sends a datagram from this worker's UDP socket
/// `server_socket` (or the first of `to`'s family when -1).
pub fn send_to(to: SocketAddr, data: &[u8], server_socket: i32) -> std::io::Result<usize> {
    let sock = with(|t| {
        t.udp
            .iter()
            .find(|(fd, s)| {
                if server_socket >= 0 {
                    *fd == server_socket
                } else {
                    s.local_addr().is_ok_and(|a| a.is_ipv6() == to.is_ipv6())
                }
            })
            .map(|(_, s)| s.clone())
    });
    let Some(sock) = sock else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no UDP port to send from",
        ));
    };
    let n = sock.try_send_to(data, to)?;
    stats::on_send(n);
    Ok(n)
}

/// Receives datagrams on a unix datagram port until the task is dropped;
/// the sender is known by its path (`$client['address']`).
pub async fn serve_unix_dgram(sock: Rc<tokio::net::UnixDatagram>, port: usize, ctx: Rc<WorkerCtx>) {
    let server_fd = sock.as_raw_fd();
    with(|t| t.unix_dgram.push((server_fd, sock.clone())));
    let mut buf = vec![0u8; 65536];
    loop {
        match sock.recv_from(&mut buf).await {
            Ok((n, from)) => {
                stats::on_recv(n);
                let data = Bytes::copy_from_slice(&buf[..n]);
                let path = from
                    .as_pathname()
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if let Outcome::Fatal(code) = ctx.hooks.on_unix_packet(port, data, &path, server_fd)
                {
                    ctx.poison(code);
                }
            }
            Err(e) => {
                crate::rlog!(Warning, "recvfrom() on unix socket: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// `send($path, ...)`/`sendto($path, ...)`: a datagram to the unix socket at
/// `path` from this worker's unix datagram socket `server_socket` (or its
/// first when -1).
pub fn send_unix_dgram(path: &str, data: &[u8], server_socket: i32) -> std::io::Result<usize> {
    let sock = with(|t| {
        t.unix_dgram
            .iter()
            .find(|(fd, _)| server_socket < 0 || *fd == server_socket)
            .map(|(_, s)| s.clone())
    });
    let Some(sock) = sock else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no unix datagram port to send from",
        ));
    };
    let n = sock.try_send_to(data, path)?;
    stats::on_send(n);
    Ok(n)
}

/// Forgets this worker's UDP sockets (the worker is draining).
pub fn forget_udp() {
    with(|t| {
        t.udp.clear();
        t.unix_dgram.clear();
    });
}

/// Ids of this worker's open connections.
pub fn local_fds() -> Vec<i64> {
    let mut v: Vec<i64> = with(|t| t.conns.keys().copied().collect());
    v.sort_unstable();
    v
}
