//! Binding the listening socket, before any fork, so every worker inherits it.
//!
//! One socket shared by all workers (rather than one `SO_REUSEPORT` socket per
//! worker) means a worker that dies takes no queued connections with it: the
//! kernel keeps them in the one accept queue for the others. See
//! docs/internals.md, "Accepting".

use std::net::{SocketAddr, TcpListener, ToSocketAddrs, UdpSocket};

use socket2::{Domain, Protocol, Socket, Type};

use crate::engine::config::PortOptions;
use crate::engine::error::{Error, Result};

/// What a port speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortKind {
    /// HTTP/1.1 on hyper (`Swoole\Http\Server`'s main port).
    Http,
    /// Raw TCP: `connect`, `receive` (framed by [`PortOptions::framing`]), `close`.
    Stream,
    /// UDP: `packet`.
    Datagram,
}

/// A bound socket of either kind.
#[derive(Debug)]
pub enum PortSocket {
    Tcp(TcpListener),
    Udp(UdpSocket),
    /// SWOOLE_PROCESS, in a worker: a TCP port (its number) whose
    /// connections the master accepts and hands over.
    Dispatched(u16),
}

impl PortSocket {
    pub fn try_clone(&self) -> std::io::Result<PortSocket> {
        Ok(match self {
            PortSocket::Tcp(l) => PortSocket::Tcp(l.try_clone()?),
            PortSocket::Udp(u) => PortSocket::Udp(u.try_clone()?),
            PortSocket::Dispatched(p) => PortSocket::Dispatched(*p),
        })
    }

    pub fn local_port(&self) -> u16 {
        match self {
            PortSocket::Tcp(l) => l.local_addr().map(|a| a.port()).unwrap_or(0),
            PortSocket::Udp(u) => u.local_addr().map(|a| a.port()).unwrap_or(0),
            PortSocket::Dispatched(p) => *p,
        }
    }

    pub fn raw_fd(&self) -> i32 {
        use std::os::fd::AsRawFd;
        match self {
            PortSocket::Tcp(l) => l.as_raw_fd(),
            PortSocket::Udp(u) => u.as_raw_fd(),
            PortSocket::Dispatched(_) => -1,
        }
    }
}

/// One listening port of a server: the main one is index 0, then every
/// `listen()`/`addListener()` in order.
#[derive(Debug)]
pub struct Port {
    pub index: usize,
    pub kind: PortKind,
    pub socket: PortSocket,
    pub opts: PortOptions,
}

impl Port {
    pub fn try_clone(&self) -> std::io::Result<Port> {
        Ok(Port {
            index: self.index,
            kind: self.kind,
            socket: self.socket.try_clone()?,
            opts: self.opts.clone(),
        })
    }
}

/// Creates a socket of `ty`/`proto` bound to `host:port` (port 0 picks a
/// free one), with `SO_REUSEADDR`. `IPV6_V6ONLY` is left at the system's
/// default, as Swoole leaves it: on Linux (`net.ipv6.bindv6only = 0`) a
/// `::` port also takes IPv4 clients.
/// Errors name the address as Swoole does.
fn bind_socket(
    host: &str,
    port: u16,
    ipv6: bool,
    ty: Type,
    proto: Protocol,
) -> Result<(Socket, String)> {
    let shown = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let addr = resolve(host, port, ipv6).map_err(|e| Error::listen(&shown, e))?;
    let domain = if addr.is_ipv6() {
        Domain::IPV6
    } else {
        Domain::IPV4
    };
    let sock = Socket::new(domain, ty, Some(proto)).map_err(|e| Error::listen(&shown, e))?;
    sock.set_reuse_address(true)
        .map_err(|e| Error::listen(&shown, e))?;
    sock.bind(&addr.into())
        .map_err(|e| Error::listen(&shown, e))?;
    Ok((sock, shown))
}

/// Binds a UDP socket on `host:port` (port 0 picks a free one).
pub fn bind_udp(host: &str, port: u16, ipv6: bool) -> Result<UdpSocket> {
    let (sock, _) = bind_socket(host, port, ipv6, Type::DGRAM, Protocol::UDP)?;
    Ok(sock.into())
}

/// Applies a port's per-connection socket options to an accepted stream.
pub fn apply_stream_options(stream: &tokio::net::TcpStream, opts: &PortOptions) {
    let _ = stream.set_nodelay(opts.open_tcp_nodelay);
    let sock = socket2::SockRef::from(stream);
    if let Some((idle, interval, count)) = opts.tcp_keepalive {
        let mut ka = socket2::TcpKeepalive::new();
        if idle > 0 {
            ka = ka.with_time(std::time::Duration::from_secs(idle as u64));
        }
        if interval > 0 {
            ka = ka.with_interval(std::time::Duration::from_secs(interval as u64));
        }
        if count > 0 {
            ka = ka.with_retries(count);
        }
        let _ = sock.set_tcp_keepalive(&ka);
    }
    if let Some(n) = opts.socket_buffer_size {
        let _ = sock.set_send_buffer_size(n);
        let _ = sock.set_recv_buffer_size(n);
    }
}

/// Swoole's default `backlog`.
pub const DEFAULT_BACKLOG: i32 = 512;

/// `backlog` for a listening socket: listen() again with the new length
/// (Linux takes it; the kernel caps it at `net.core.somaxconn`).
pub fn set_backlog(l: &TcpListener, backlog: i64) {
    let n = backlog.clamp(1, i32::MAX as i64) as i32;
    if let Err(e) = socket2::SockRef::from(l).listen(n) {
        crate::rlog!(Warning, "listen(backlog={n}): {e}");
    }
}

/// Binds `host:port` (port 0 picks a free one) and starts listening.
pub fn bind_tcp(host: &str, port: u16, ipv6: bool, backlog: i32) -> Result<TcpListener> {
    let (sock, shown) = bind_socket(host, port, ipv6, Type::STREAM, Protocol::TCP)?;
    sock.listen(backlog).map_err(|e| Error::listen(&shown, e))?;
    Ok(sock.into())
}

/// The peer address a unix-socket connection is known by: no IP, port 0
/// (Swoole reports `remote_ip` "" and `remote_port` 0 for unix peers). A TCP
/// peer can never be 0.0.0.0:0.
pub const UNIX_PEER: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), 0);

/// True for [`UNIX_PEER`].
pub fn is_unix_peer(peer: &SocketAddr) -> bool {
    *peer == UNIX_PEER
}

/// True when `fd` is an `AF_UNIX` socket.
pub fn is_unix_fd(fd: i32) -> bool {
    // SAFETY: `fd` is borrowed for the length of this call only; getsockname
    // on a closed or non-socket fd just fails.
    let sock = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    socket2::SockRef::from(&sock)
        .local_addr()
        .is_ok_and(|a| a.is_unix())
}

/// Binds a unix-domain socket at `path` (`SWOOLE_SOCK_UNIX_STREAM` or
/// `_DGRAM`). An existing file is an error (`EADDRINUSE`), as in Swoole.
fn bind_unix(path: &str, ty: Type) -> Result<Socket> {
    let shown = format!("{path}:0");
    let addr = socket2::SockAddr::unix(path).map_err(|e| Error::listen(&shown, e))?;
    let sock = Socket::new(Domain::UNIX, ty, None).map_err(|e| Error::listen(&shown, e))?;
    sock.bind(&addr).map_err(|e| Error::listen(&shown, e))?;
    Ok(sock)
}

/// A listening unix stream socket. It travels as a `TcpListener` (the same
/// fd type to every accept path); connections come from [`accept_any`].
pub fn bind_unix_stream(path: &str, backlog: i32) -> Result<TcpListener> {
    let sock = bind_unix(path, Type::STREAM)?;
    if let Err(e) = sock.listen(backlog) {
        let _ = std::fs::remove_file(path);
        return Err(Error::listen(format!("{path}:0"), e));
    }
    Ok(sock.into())
}

/// A bound unix datagram socket (see [`recv_from_any`]).
pub fn bind_unix_dgram(path: &str) -> Result<UdpSocket> {
    Ok(bind_unix(path, Type::DGRAM)?.into())
}

/// `accept()` on a TCP or unix listener: the stream (blocking, close-on-exec)
/// and its peer, [`UNIX_PEER`] for a unix one. (std's and tokio's `accept`
/// close a unix connection because its address is not an IP one.)
pub fn accept_any(l: &TcpListener) -> std::io::Result<(std::net::TcpStream, SocketAddr)> {
    let (sock, addr) = socket2::SockRef::from(l).accept()?;
    let peer = addr.as_socket().unwrap_or(UNIX_PEER);
    Ok((sock.into(), peer))
}

/// The unix path a datagram came from ("" for an unbound sender).
pub fn unix_addr_path(addr: &socket2::SockAddr) -> String {
    addr.as_pathname()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Paths of the server's unix ports by port index (set before the fork, so
/// every worker has them): `$request->server['server_addr']`.
static UNIX_PATHS: std::sync::Mutex<Vec<(usize, String)>> = std::sync::Mutex::new(Vec::new());

/// Records the unix ports' paths (replacing the previous server's).
pub fn set_unix_paths(paths: Vec<(usize, String)>) {
    if let Ok(mut g) = UNIX_PATHS.lock() {
        *g = paths;
    }
}

/// The path of unix port `index`.
pub fn unix_path(index: usize) -> Option<String> {
    let g = UNIX_PATHS.lock().ok()?;
    g.iter().find(|(i, _)| *i == index).map(|(_, p)| p.clone())
}

fn resolve(host: &str, port: u16, ipv6: bool) -> std::io::Result<SocketAddr> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let mut addrs = (host, port).to_socket_addrs()?;
    addrs
        .find(|a| a.is_ipv6() == ipv6 || host.parse::<std::net::IpAddr>().is_ok())
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::AddrNotAvailable,
                "no address of the requested family",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_zero_picks_a_port() {
        let l = bind_tcp("127.0.0.1", 0, false, 16).expect("bind");
        assert_ne!(l.local_addr().expect("addr").port(), 0);
    }

    #[test]
    fn busy_port_is_a_listen_error() {
        let l = bind_tcp("127.0.0.1", 0, false, 16).expect("bind");
        let port = l.local_addr().expect("addr").port();
        let e = bind_tcp("127.0.0.1", port, false, 16).expect_err("must fail");
        assert!(e.is_listen());
        assert_eq!(e.os_code(), Some(libc::EADDRINUSE));
        assert!(e.to_string().contains(&format!("127.0.0.1:{port}")));
    }

    #[test]
    fn udp_port_zero() {
        let u = bind_udp("127.0.0.1", 0, false).expect("bind udp");
        let p = PortSocket::Udp(u);
        assert_ne!(p.local_port(), 0);
        assert!(p.try_clone().is_ok());
    }

    #[test]
    fn ipv6_loopback() {
        let l = bind_tcp("::1", 0, true, 16).expect("bind v6");
        assert!(l.local_addr().expect("addr").is_ipv6());
    }

    #[test]
    fn unix_stream_accepts_with_the_unix_peer() {
        let path = std::env::temp_dir().join(format!("rsw-l-{}.sock", std::process::id()));
        let path = path.to_string_lossy().into_owned();
        let _ = std::fs::remove_file(&path);
        let l = bind_unix_stream(&path, 16).expect("bind unix");
        assert!(is_unix_fd(std::os::fd::AsRawFd::as_raw_fd(&l)));
        let e = bind_unix_stream(&path, 16).expect_err("busy path");
        assert_eq!(e.os_code(), Some(libc::EADDRINUSE));
        let _c = std::os::unix::net::UnixStream::connect(&path).expect("connect");
        let (_s, peer) = accept_any(&l).expect("accept");
        assert!(is_unix_peer(&peer));
        let _ = std::fs::remove_file(&path);
    }
}
