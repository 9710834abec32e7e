//! The accept loop of a coroutine HTTP server (`Swoole\Coroutine\Http\Server`):
//! a listener in the script's own process, each connection served by the
//! engine's HTTP/1 code (`http::conn::serve`) as a task of the current
//! loop, next to the coroutines; `Stop` ends it.

use std::cell::Cell;
use std::io;
use std::net::TcpListener;
use std::rc::Rc;

use std::sync::Arc;

use tokio::sync::Notify;

use crate::engine::config::Http2Settings;
use crate::engine::tls::{NetStream, ServerTls};
use crate::engine::worker::ctx::WorkerCtx;

/// What `shutdown()` sets: the accept loop ends, open connections drain.
#[derive(Default)]
pub struct Stop {
    notify: Notify,
    set: Cell<bool>,
}

impl Stop {
    pub fn stop(&self) {
        self.set.set(true);
        self.notify.notify_one();
    }

    pub fn is_set(&self) -> bool {
        self.set.get()
    }

    /// Ready for another `start()`.
    pub fn reset(&self) {
        self.set.set(false);
    }
}

/// What a server speaks besides plain HTTP/1.1: TLS (`$ssl`) and HTTP/2
/// (`open_http2_protocol`: by ALPN under TLS, by its preface in clear text).
#[derive(Default)]
pub struct Protocols {
    pub tls: Option<Arc<ServerTls>>,
    pub http2: Option<Http2Settings>,
}

/// Accepts on `listener` until `stop` is set; each connection is served in
/// its own task (after the TLS handshake when `proto.tls` is set). Returns
/// the accept error that ended it, if any.
pub async fn serve(
    listener: &TcpListener,
    ctx: Rc<WorkerCtx>,
    stop: Rc<Stop>,
    proto: Protocols,
) -> io::Result<()> {
    let port = listener.local_addr()?.port();
    let std_l = listener.try_clone()?;
    std_l.set_nonblocking(true)?;
    let l = tokio::net::TcpListener::from_std(std_l)?;
    // The heartbeat of its connections (`conns::sweeper`, as in a worker).
    let sweeper = ctx.cfg.heartbeat().map(|(every, idle)| {
        crate::engine::rt::event_loop::spawn_untracked(crate::engine::net::conns::sweeper(
            every,
            idle,
            Vec::new(),
        ))
    });
    let result = loop {
        if stop.is_set() {
            break Ok(());
        }
        tokio::select! {
            biased;
            _ = stop.notify.notified() => {}
            r = l.accept() => match r {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    ctx.conn_opened();
                    let ctx = ctx.clone();
                    let tls = proto.tls.clone();
                    let http2 = proto.http2;
                    crate::engine::rt::event_loop::spawn(async move {
                        let stream = match tls {
                            None => NetStream::Plain(stream),
                            Some(tls) => match tls.accept(stream).await {
                                Ok(s) => s,
                                Err(e) => {
                                    if let Some(w) = e.bad_client_warning(&peer) {
                                        crate::rlog!(Warning, "{w}");
                                    }
                                    ctx.conn_closed();
                                    return;
                                }
                            },
                        };
                        let fd = crate::engine::shared::session::open(0, 0, port, peer);
                        // The handshake's drain count passes to the guard.
                        let (guard, rx) =
                            crate::engine::net::conns::register(fd, crate::engine::net::conns::Kind::Http, 0, &ctx);
                        ctx.conn_closed();
                        crate::engine::http::conn::serve(stream, peer, guard, rx, port, http2, ctx).await;
                    });
                }
                Err(e) => match e.raw_os_error() {
                    // A connection that went away before we took it, or a
                    // passing shortage of descriptors: keep accepting.
                    Some(libc::ECONNABORTED) | Some(libc::EINTR) => {}
                    Some(libc::EMFILE) | Some(libc::ENFILE) => {
                        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    }
                    _ => break Err(e),
                },
            }
        }
    };
    if let Some(t) = sweeper {
        t.abort();
    }
    // Open connections answer what they have and close (keep-alive ends).
    let _ = ctx.shutdown.send(true);
    result
}

/// Which step of `bind` failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindStep {
    Bind,
    Listen,
}

/// Binds `host:port` (port 0 picks a free one) with `SO_REUSEADDR`, and
/// `SO_REUSEPORT` when asked, then listens.
pub fn bind(
    host: &str,
    port: u16,
    reuse_port: bool,
    backlog: i32,
) -> Result<TcpListener, (BindStep, io::Error)> {
    use socket2::{Domain, Protocol, Socket, Type};
    use std::net::ToSocketAddrs;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addr = (bare, port)
        .to_socket_addrs()
        .map_err(|e| (BindStep::Bind, e))?
        .next()
        .ok_or_else(|| {
            (
                BindStep::Bind,
                io::Error::from_raw_os_error(libc::EADDRNOTAVAIL),
            )
        })?;
    let domain = if addr.is_ipv6() {
        Domain::IPV6
    } else {
        Domain::IPV4
    };
    let sock =
        Socket::new(domain, Type::STREAM, Some(Protocol::TCP)).map_err(|e| (BindStep::Bind, e))?;
    let _ = sock.set_reuse_address(true);
    if reuse_port {
        let _ = sock.set_reuse_port(true);
    }
    if addr.is_ipv6() {
        let _ = sock.set_only_v6(true);
    }
    sock.bind(&addr.into()).map_err(|e| (BindStep::Bind, e))?;
    sock.listen(backlog).map_err(|e| (BindStep::Listen, e))?;
    Ok(sock.into())
}
