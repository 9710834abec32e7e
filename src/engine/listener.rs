//! Binding the listening socket, before any fork, so every worker inherits it.
//!
//! One socket shared by all workers (rather than one `SO_REUSEPORT` socket per
//! worker) means a worker that dies takes no queued connections with it: the
//! kernel keeps them in the one accept queue for the others. See
//! docs/internals.md, "Accepting".

use std::net::{SocketAddr, TcpListener, ToSocketAddrs, UdpSocket};

use socket2::{Domain, Protocol, Socket, Type};

use super::config::PortOptions;
use super::error::{Error, Result};

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
}
