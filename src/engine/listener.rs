//! Binding the listening socket, before any fork, so every worker inherits it.
//!
//! One socket shared by all workers (rather than one `SO_REUSEPORT` socket per
//! worker) means a worker that dies takes no queued connections with it: the
//! kernel keeps them in the one accept queue for the others. See
//! docs/internals.md, "Accepting".

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};

use socket2::{Domain, Protocol, Socket, Type};

use super::error::{Error, Result};

/// Swoole's default `backlog`.
pub const DEFAULT_BACKLOG: i32 = 512;

/// Binds `host:port` (port 0 picks a free one) and starts listening.
pub fn bind_tcp(host: &str, port: u16, ipv6: bool, backlog: i32) -> Result<TcpListener> {
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
    let sock = Socket::new(domain, Type::STREAM, Some(Protocol::TCP))
        .map_err(|e| Error::listen(&shown, e))?;
    sock.set_reuse_address(true)
        .map_err(|e| Error::listen(&shown, e))?;
    if addr.is_ipv6() {
        // "::" should not also take the IPv4 port: Swoole binds v6-only too.
        let _ = sock.set_only_v6(true);
    }
    sock.bind(&addr.into())
        .map_err(|e| Error::listen(&shown, e))?;
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
    fn ipv6_loopback() {
        let l = bind_tcp("::1", 0, true, 16).expect("bind v6");
        assert!(l.local_addr().expect("addr").is_ipv6());
    }
}
