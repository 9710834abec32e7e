//! Raw TCP connections (`Swoole\Server`'s `connect`/`receive`/`close`) and
//! UDP ports (`packet`) in a worker.
//!
//! Each connection is one task on the worker's `LocalSet`, entered in the
//! worker's registry (`conns`: `send()`, `close()`, `exists()`,
//! `pause()`/`resume()`, `protect()`, the heartbeat). It reads, cuts the
//! stream into messages (`framing`), fires `receive` for each, and executes
//! the commands queued for it (`Data`, `Close`, ...) in order, so `send()`
//! then `close()` writes every byte before the FIN.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::rc::Rc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use super::config::PortOptions;
use super::conns::{self, Cmd, Conn};
use super::ctx::WorkerCtx;
use super::framing::{self, FrameError};
use super::hooks::Outcome;
use super::stats;
use super::tls::NetStream;

/// This worker's datagram sockets (its connections are in `conns`).
#[derive(Default)]
struct Tables {
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

/// Serves one raw TCP connection until it closes.
/// `guard` and `rx` come from [`conns::register`]: the guard's drop ends
/// the connection's life (also when this task panics or is dropped).
pub async fn serve_conn(
    stream: NetStream,
    guard: conns::Guard,
    mut rx: mpsc::UnboundedReceiver<Cmd>,
    opts: Rc<PortOptions>,
    ctx: Rc<WorkerCtx>,
) {
    let conn = guard.conn().clone();
    let (fd, port) = (conn.fd(), conn.port());
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
    conn.flow().close();
    if let Outcome::Fatal(code) = ctx.hooks.on_close(fd, reactor, port) {
        ctx.poison(code);
    }
    stats::on_close(aborted);
    // Out of the registry, session slot freed, drain count down.
    drop(guard);
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
                    #[cfg(feature = "fault-inject")]
                    conns::fault::check(&buf);
                    conn.touch();
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
                    conn.flow().sent(b.len());
                    if written.is_err() {
                        aborted = true;
                        break;
                    }
                    stats::on_send(b.len());
                }
                Some(Cmd::Close { reset: r, last }) => {
                    reset = r;
                    if !r && !last.is_empty() && wr.write_all(&last).await.is_ok() {
                        stats::on_send(last.len());
                    }
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
