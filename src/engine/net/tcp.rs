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

use crate::engine::config::PortOptions;
use crate::engine::hooks::Outcome;
use crate::engine::net::conns::{self, Cmd, Conn};
use crate::engine::net::framing::{self, FrameError};
use crate::engine::shared::stats;
use crate::engine::tls::NetStream;
use crate::engine::worker::ctx::WorkerCtx;
use crate::engine::worker::dispatch::{self, Target};

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

/// Serves one raw TCP connection until it closes (or, with per-message
/// dispatch, until this worker hands it back to the master).
/// `guard` and `rx` come from [`conns::register`]: the guard's drop ends
/// the connection's life (also when this task panics or is dropped).
pub async fn serve_conn(
    stream: NetStream,
    guard: conns::Guard,
    mut rx: conns::Receiver,
    opts: Rc<PortOptions>,
    ctx: Rc<WorkerCtx>,
) {
    let conn = guard.conn().clone();
    let (fd, port) = (conn.fd(), conn.port());
    let reactor = ctx.id as i32;
    let events = !dispatch::no_conn_events(&ctx.cfg);
    if events {
        if let Outcome::Fatal(code) = ctx.hooks.on_connect(fd, reactor, port) {
            ctx.poison(code);
        }
    }
    let fwd = dispatch::per_message(&ctx.cfg);
    let end = match stream {
        NetStream::Plain(stream) => {
            conn.set_raw_fd(stream.as_raw_fd());
            let (mut rd, mut wr) = stream.into_split();
            let r = pump(&mut rd, &mut wr, &mut rx, &conn, fd, port, &opts, &ctx, fwd).await;
            conn.set_raw_fd(-1);
            // Dropping the write half alone would send a FIN; put the halves
            // back together so a reset closes with an RST only.
            if let Ok(stream) = rd.reunite(wr) {
                if r.reset {
                    let _ = socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO));
                }
                drop(stream);
            }
            r
        }
        tls => {
            let (mut rd, mut wr) = tokio::io::split(tls);
            let r = pump(
                &mut rd, &mut wr, &mut rx, &conn, fd, port, &opts, &ctx, false,
            )
            .await;
            let stream = rd.unsplit(wr);
            if r.reset {
                let _ = socket2::SockRef::from(stream.tcp()).set_linger(Some(Duration::ZERO));
            }
            drop(stream);
            r
        }
    };
    // No more commands: `send()` from onClose on fails.
    rx.close();
    conn.flow().close();
    if end.give_back {
        let _ = crate::engine::proc::reactor::give_back_conn(fd);
        stats::on_close(false);
        drop(guard);
        return;
    }
    if events {
        if let Outcome::Fatal(code) = ctx.hooks.on_close(fd, reactor, port) {
            ctx.poison(code);
        }
    }
    stats::on_close(end.aborted);
    // Out of the registry, session slot freed, drain count down.
    drop(guard);
}

/// How [`pump`] ended.
struct End {
    aborted: bool,
    reset: bool,
    /// Per-message dispatch: the connection goes back to the master.
    give_back: bool,
}

/// Reads and frames `rd`, runs the connection's commands on `wr`, until
/// either side ends it. `fwd`: each message goes to the worker
/// [`dispatch::target`] names, and a retiring or draining worker hands the
/// connection back (when no message is half read).
#[allow(clippy::too_many_arguments)]
async fn pump<R, W>(
    rd: &mut R,
    wr: &mut W,
    rx: &mut conns::Receiver,
    conn: &Conn,
    fd: i64,
    port: usize,
    opts: &PortOptions,
    ctx: &WorkerCtx,
    fwd: bool,
) -> End
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let reactor = ctx.id as i32;
    let mut shutdown = ctx.shutdown.subscribe();
    let mut buf = BytesMut::with_capacity(64 * 1024);
    let mut frames = Vec::new();
    // `enable_delay_receive`: nothing is read before `confirm($fd)`.
    let mut paused = ctx.cfg.enable_delay_receive;
    let mut aborted = false;
    let mut reset = false;
    let mut draining = *shutdown.borrow();
    // A draining worker still reads the connections the master sent before
    // it saw the worker stop taking them (a give-back can be handed to the
    // other retiring worker): with per-message dispatch such a connection
    // goes straight back, untouched, instead of being shut down unserved.
    let mut give_back = fwd && draining;
    // `max_idle_time`: closed when nothing came for that long.
    let idle_limit = opts.max_idle_time;
    let mut last_rx = tokio::time::Instant::now();
    while !draining {
        if fwd && buf.is_empty() && ctx.is_retiring() {
            give_back = true;
            break;
        }
        if buf.capacity() - buf.len() < 4096 {
            buf.reserve(64 * 1024);
        }
        tokio::select! {
            r = rd.read_buf(&mut buf), if !paused => match r {
                Ok(0) => break,
                Ok(n) => {
                    last_rx = tokio::time::Instant::now();
                    stats::on_recv(n);
                    #[cfg(feature = "fault-inject")]
                    conns::fault::check(&buf);
                    conn.touch();
                    let r = framing::take_frames(&opts.framing, &mut buf, opts.package_max_length, &mut frames);
                    let mut close_now = false;
                    for f in frames.drain(..) {
                        let to = if fwd { dispatch::target(ctx, fd, &f) } else { Target::Here };
                        match to {
                            Target::Here => dispatch::handle(ctx, fd, reactor, port, f, fwd),
                            Target::Worker(id) => {
                                if let Err(f) = dispatch::forward(id, fd, port, f) {
                                    dispatch::handle(ctx, fd, reactor, port, f, fwd);
                                }
                            }
                            Target::Discard => {}
                            Target::Close => close_now = true,
                        }
                        if close_now {
                            break;
                        }
                    }
                    if close_now {
                        frames.clear();
                        break;
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
                if draining && fwd && buf.is_empty() {
                    give_back = true;
                }
            }
            _ = ctx.retired.notified(), if fwd => {}
            _ = tokio::time::sleep_until(last_rx + idle_limit.unwrap_or_default()), if idle_limit.is_some() => {
                crate::rlog!(Debug, "connection {fd}: nothing received for max_idle_time, closing it");
                break;
            }
        }
    }
    if give_back {
        // What was queued for the client still goes out from here.
        loop {
            match rx.try_recv() {
                Ok(Cmd::Data(b)) => {
                    let written = wr.write_all(&b).await;
                    conn.flow().sent(b.len());
                    if written.is_err() {
                        return End {
                            aborted: true,
                            reset: false,
                            give_back: false,
                        };
                    }
                    stats::on_send(b.len());
                }
                Ok(Cmd::Close { reset: r, last }) => {
                    give_back = false;
                    reset = r;
                    if !r && !last.is_empty() && wr.write_all(&last).await.is_ok() {
                        stats::on_send(last.len());
                    }
                    break;
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        if give_back {
            let _ = wr.flush().await;
            return End {
                aborted: false,
                reset: false,
                give_back: true,
            };
        }
    }
    if !reset {
        // FIN after everything queued was written.
        let _ = wr.shutdown().await;
    }
    End {
        aborted,
        reset,
        give_back: false,
    }
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
                let data = match dispatch::packet_target(&ctx, &peer, &data) {
                    Target::Here => data,
                    Target::Worker(id) => {
                        match dispatch::forward_packet(id, port, server_fd, server_port, peer, data)
                        {
                            Ok(()) => continue,
                            Err(data) => data,
                        }
                    }
                    Target::Discard | Target::Close => continue,
                };
                dispatch::handle_packet(&ctx, port, data, peer, server_fd, server_port);
            }
            Err(e) => {
                crate::rlog!(Warning, "recvfrom() on UDP port {server_port}: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// A UDP socket this process sends from but does not read (a task
/// worker's copy of a server port).
pub fn add_udp_sender(sock: Rc<UdpSocket>) {
    let fd = sock.as_raw_fd();
    with(|t| t.udp.push((fd, sock)));
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

#[cfg(test)]
pub(crate) mod tests {
    //! Raw TCP connections served by `serve_conn` in a `LocalSet`, driven
    //! through the registry (`conns`) as `$server->send()` and friends are.

    use std::cell::RefCell;
    use std::rc::Rc;
    use std::time::Duration;

    use bytes::Bytes;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};
    use tokio::task::JoinHandle;

    use super::serve_conn;
    use crate::engine::config::{PortOptions, ServerConfig};
    use crate::engine::hooks::{Hooks, Outcome};
    use crate::engine::http::{HttpRequest, Responder};
    use crate::engine::net::conns;
    use crate::engine::shared::session;
    use crate::engine::tls::NetStream;
    use crate::engine::worker::ctx::WorkerCtx;

    /// Hooks that write down what happened.
    #[derive(Default)]
    pub(crate) struct Rec(pub RefCell<Vec<String>>);

    impl Rec {
        pub(crate) fn saw(&self, what: &str) -> bool {
            self.0.borrow().iter().any(|e| e == what)
        }
    }

    impl Hooks for Rec {
        fn on_request(&self, _req: HttpRequest, _resp: Responder) -> Outcome {
            Outcome::Done
        }
        fn on_connect(&self, fd: i64, _reactor: i32, _port: usize) -> Outcome {
            self.0.borrow_mut().push(format!("connect {fd}"));
            Outcome::Done
        }
        fn on_receive(&self, fd: i64, _reactor: i32, _port: usize, data: Bytes) -> Outcome {
            let text = String::from_utf8_lossy(&data).into_owned();
            self.0.borrow_mut().push(format!("receive {fd} {text}"));
            Outcome::Done
        }
        fn on_close(&self, fd: i64, _reactor: i32, _port: usize) -> Outcome {
            self.0.borrow_mut().push(format!("close {fd}"));
            Outcome::Done
        }
        fn on_ws_message(&self, fd: i64, data: Bytes, opcode: u8, _flags: u8) -> Outcome {
            let text = String::from_utf8_lossy(&data).into_owned();
            self.0
                .borrow_mut()
                .push(format!("message {fd} {opcode} {text}"));
            Outcome::Done
        }
    }

    pub(crate) fn ctx(hooks: &Rc<Rec>) -> Rc<WorkerCtx> {
        session::init_once();
        WorkerCtx::standalone(Rc::new(ServerConfig::default()), hooks.clone(), 0)
    }

    /// Runs `f` on a current-thread runtime inside a `LocalSet` (as a
    /// worker does); `paused`: on tokio's paused clock.
    pub(crate) fn run<F: std::future::Future<Output = ()>>(paused: bool, f: F) {
        let mut b = tokio::runtime::Builder::new_current_thread();
        b.enable_all();
        if paused {
            b.start_paused(true);
        }
        let rt = b.build().expect("runtime");
        tokio::task::LocalSet::new().block_on(&rt, f);
    }

    /// A client connected to a connection `serve_conn` serves, as a
    /// worker's `open_conn` starts it.
    async fn open(ctx: &Rc<WorkerCtx>) -> (TcpStream, i64, JoinHandle<()>) {
        let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = l.local_addr().expect("addr");
        let client = TcpStream::connect(addr).await.expect("connect");
        let (server, peer) = l.accept().await.expect("accept");
        let fd = session::open(ctx.id as i32, 0, addr.port(), peer);
        let (guard, rx) = conns::register(fd, conns::Kind::Stream, 0, ctx);
        let task = tokio::task::spawn_local(serve_conn(
            NetStream::Plain(server),
            guard,
            rx,
            Rc::new(PortOptions::default()),
            ctx.clone(),
        ));
        (client, fd, task)
    }

    async fn read_n(c: &mut TcpStream, n: usize) -> String {
        let mut b = vec![0u8; n];
        c.read_exact(&mut b).await.expect("read");
        String::from_utf8_lossy(&b).into_owned()
    }

    /// Until `hooks` saw `what` (a few seconds at most).
    pub(crate) async fn until_seen(hooks: &Rec, what: &str) {
        for _ in 0..500 {
            if hooks.saw(what) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("never saw {what:?}: {:?}", hooks.0.borrow());
    }

    #[test]
    fn send_pause_resume_close_through_the_registry() {
        let hooks = Rc::new(Rec::default());
        let ctx = ctx(&hooks);
        run(false, async {
            let (mut c, fd, task) = open(&ctx).await;
            assert!(conns::exists(fd));
            assert_eq!(conns::port_of(fd), Some(0));
            assert_eq!(ctx.conns.get(), 1);
            assert_eq!(session::get(fd).map(|s| s.fd), Some(fd));
            assert!(conns::send(fd, Bytes::from_static(b"hello")));
            assert_eq!(read_n(&mut c, 5).await, "hello");
            c.write_all(b"one").await.expect("write");
            until_seen(&hooks, &format!("receive {fd} one")).await;

            // Paused: what the client sends stays unread; the commands
            // still run (the echo proves the pause was taken first).
            assert!(conns::set_paused(fd, true));
            c.write_all(b"two").await.expect("write");
            assert!(conns::send(fd, Bytes::from_static(b"x")));
            assert_eq!(read_n(&mut c, 1).await, "x");
            tokio::task::yield_now().await;
            assert!(!hooks.saw(&format!("receive {fd} two")));
            assert!(conns::set_paused(fd, false));
            until_seen(&hooks, &format!("receive {fd} two")).await;

            // close() after send(): every byte before the FIN.
            assert!(conns::send(fd, Bytes::from_static(b"bye")));
            assert!(conns::close(fd, false));
            let mut rest = Vec::new();
            c.read_to_end(&mut rest).await.expect("read to end");
            assert_eq!(rest, b"bye");
            task.await.expect("task");
            assert!(hooks.saw(&format!("close {fd}")));
            assert!(
                !conns::exists(fd),
                "gone from the registry and the session table"
            );
            assert!(!conns::send(fd, Bytes::from_static(b"late")));
            assert_eq!(ctx.conns.get(), 0, "drain count back to zero");
        });
    }

    #[test]
    fn sweeper_closes_idle_unprotected_connections() {
        let hooks = Rc::new(Rec::default());
        let ctx = ctx(&hooks);
        run(true, async {
            let (mut idle, idle_fd, _t1) = open(&ctx).await;
            let (_kept, kept_fd, _t2) = open(&ctx).await;
            assert!(conns::protect(kept_fd, true));
            let start = tokio::time::Instant::now();
            let sweeper = tokio::task::spawn_local(conns::sweeper(
                Duration::from_secs(1),
                Duration::from_secs(3),
                Vec::new(),
            ));
            // The clock jumps while everything waits: the idle connection
            // is closed by the first sweep after 3 s of silence.
            let mut rest = Vec::new();
            idle.read_to_end(&mut rest).await.expect("eof");
            let waited = start.elapsed();
            assert!(
                waited >= Duration::from_secs(3) && waited < Duration::from_secs(5),
                "{waited:?}"
            );
            until_seen(&hooks, &format!("close {idle_fd}")).await;
            assert!(!conns::exists(idle_fd));
            assert!(conns::exists(kept_fd), "protected");
            assert_eq!(
                conns::idle_connections(Duration::from_secs(1), false),
                Vec::<i64>::new()
            );
            assert!(conns::protect(kept_fd, false));
            assert_eq!(
                conns::idle_connections(Duration::from_secs(1), false),
                vec![kept_fd]
            );
            sweeper.abort();
            assert!(conns::close(kept_fd, true));
        });
    }

    /// A connection task that panics still frees its session slot, leaves
    /// the registry and the drain count (the guard's drop), so other
    /// workers stop listing it and a draining worker does not wait for it.
    #[cfg(feature = "fault-inject")]
    #[test]
    fn fault_inject_panicking_task_frees_its_slot() {
        let hooks = Rc::new(Rec::default());
        let ctx = ctx(&hooks);
        run(false, async {
            let (mut c, fd, task) = open(&ctx).await;
            assert!(session::get(fd).is_some());
            c.write_all(conns::fault::PANIC).await.expect("write");
            let r = task.await;
            assert!(r.is_err_and(|e| e.is_panic()), "the task panicked");
            assert!(session::get(fd).is_none(), "session slot freed");
            assert!(conns::get(fd).is_none(), "out of the registry");
            assert!(!conns::exists(fd));
            assert_eq!(ctx.conns.get(), 0, "drain count back to zero");
        });
    }
}
