//! A worker process: its own current-thread tokio runtime, built after fork,
//! accepting from the inherited listening sockets (HTTP, raw TCP, UDP) and
//! reading its IPC inbox (tasks, results, routed sends).
//!
//! States (docs/internals.md): Starting (runtime built, `workerStart` runs)
//! -> Ready (accepting; the master is told) -> Draining (SIGTERM or a fatal:
//! no more accepts, connections finish within `max_wait_time`) -> Exited.
//! A worker that reaches `max_request` or `max_worker_memory` asks the master
//! for a replacement and keeps serving until the master's SIGTERM.

pub mod bufpool;
pub mod ctx;
pub mod dispatch;
pub mod halt;
pub mod inbox;

use std::net::{SocketAddr, TcpListener as StdListener};
use std::os::fd::{AsFd, AsRawFd};
use std::rc::Rc;
use std::time::{Duration, Instant};

use tokio::net::{TcpListener, TcpStream};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::watch;

use crate::engine::config::{PortOptions, ServerConfig};
use crate::engine::hooks::{Hooks, Outcome};
use crate::engine::http::conn;
use crate::engine::log::{self, Role};
use crate::engine::net::conns;
use crate::engine::net::listener::{Port, PortKind, PortSocket};
use crate::engine::proc::reactor;
use crate::engine::tls::NetStream;

pub use crate::engine::worker::ctx::{
    current_worker_id, forget_worker_id, is_task_worker, WorkerCtx, WorkerState,
};

/// `max_request` plus a pseudo-random 0..=grace, so workers started together
/// do not all recycle at the same moment (Swoole's `max_request_grace`).
/// A task worker counts tasks against `task_max_request` instead.
fn request_limit(cfg: &ServerConfig) -> u64 {
    let (max, grace) = if is_task_worker() {
        (cfg.task_max_request, cfg.task_request_grace())
    } else {
        (cfg.max_request, cfg.request_grace())
    };
    limit_with_grace(max, grace)
}

fn limit_with_grace(max: u64, grace: u64) -> u64 {
    if max == 0 {
        return 0;
    }
    if grace == 0 {
        return max;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() as u64)
        .unwrap_or(0);
    let seed = (std::process::id() as u64) ^ nanos.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    max + seed % (grace + 1)
}

/// Runs worker `id` until it stops; returns the process exit code.
pub fn run(id: usize, listener: StdListener, cfg: Rc<ServerConfig>, hooks: Rc<dyn Hooks>) -> i32 {
    run_ports(id, vec![http_port(listener)], cfg, hooks)
}

/// The one HTTP port of `serve`/`run`.
fn http_port(listener: StdListener) -> Port {
    Port {
        index: 0,
        kind: PortKind::Http,
        socket: PortSocket::Tcp(listener),
        opts: Default::default(),
    }
}

/// Runs worker (or task worker, with no ports) `id` until it stops.
pub fn run_ports(id: usize, ports: Vec<Port>, cfg: Rc<ServerConfig>, hooks: Rc<dyn Hooks>) -> i32 {
    let task = id >= cfg.worker_num.max(1) && cfg.task_worker_num > 0;
    crate::engine::worker::ctx::set_worker_id(id as i32, task);
    if let (true, 2 | 3, Some(key)) = (task, cfg.task_ipc_mode, cfg.message_queue_key) {
        // Swoole's mode 2 takes the messages addressed to this task worker
        // (type id + 1), mode 3 any message.
        let mtype = if cfg.task_ipc_mode == 2 {
            id as i64 + 1
        } else {
            0
        };
        if let Err(e) = crate::engine::ipc::start_queue_reader(key, mtype) {
            crate::rlog!(Warning, "msgget({key}) failed: {e}");
        }
    }
    log::set_role(
        if task { Role::TaskWorker } else { Role::Worker },
        id as i32,
    );
    let mut builder = tokio::runtime::Builder::new_current_thread();
    builder.enable_all();
    if !task && dispatch::per_message(&cfg) && cfg.dispatch_mode == 9 {
        // Mode 9: the coroutine count the others dispatch by, each time the
        // loop goes to sleep (Swoole's end-of-round callback).
        builder.on_thread_park(move || dispatch::publish_coroutines(id));
    }
    let rt = match builder.build() {
        Ok(rt) => rt,
        Err(e) => {
            crate::rlog!(Error, "worker#{id}: cannot build runtime: {e}");
            return 1;
        }
    };
    crate::engine::rt::event_loop::block_on_woken(&rt, async move {
        let (mut term, mut int) = match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(t), Ok(i)) => (t, i),
            _ => {
                crate::rlog!(Error, "worker#{id}: cannot install signal handlers");
                return 1;
            }
        };
        // logrotate: the master passes SIGRTMIN on; reopen our handle too.
        if let Ok(mut reopen) = signal(SignalKind::from_raw(libc::SIGRTMIN())) {
            tokio::task::spawn_local(async move {
                while reopen.recv().await.is_some() {
                    let _ = log::reopen();
                }
            });
        }
        let stop = async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        };
        serve_ports(id, ports, cfg, hooks, stop).await
    })
}

/// The worker's life inside its runtime. `stop` resolves when the worker
/// should drain (SIGTERM in production, whatever a test likes in tests).
pub async fn serve(
    id: usize,
    listener: StdListener,
    cfg: Rc<ServerConfig>,
    hooks: Rc<dyn Hooks>,
    stop: impl std::future::Future<Output = ()>,
) -> i32 {
    serve_ports(id, vec![http_port(listener)], cfg, hooks, stop).await
}

/// Serves one accepted (or, in PROCESS mode, handed-over) connection.
fn start_conn(
    stream: TcpStream,
    peer: SocketAddr,
    kind: PortKind,
    index: usize,
    port_num: u16,
    opts: &Rc<PortOptions>,
    ctx: &Rc<WorkerCtx>,
) {
    if ctx.conns.get() >= ctx.cfg.max_connection {
        crate::rlog!(
            Warning,
            "worker#{}: max_connection[{}] reached, closing new connection",
            ctx.id,
            ctx.cfg.max_connection
        );
        // The master may hold a copy (PROCESS mode): end the socket itself.
        let _ = nix::sys::socket::shutdown(stream.as_raw_fd(), nix::sys::socket::Shutdown::Both);
        return;
    }
    crate::engine::net::listener::apply_stream_options(&stream, opts);
    let Some(tls) = opts.tls.clone() else {
        open_conn(
            NetStream::Plain(stream),
            peer,
            kind,
            index,
            port_num,
            opts,
            ctx,
        );
        return;
    };
    // SWOOLE_SSL: the handshake first (in its own task, bounded by
    // tls::HANDSHAKE_TIMEOUT); the connection exists for the script (id,
    // onConnect) only once it is done, as in Swoole.
    let opts = opts.clone();
    let ctx = ctx.clone();
    tokio::task::spawn_local(async move {
        match tls.accept(stream).await {
            Ok(s) => open_conn(s, peer, kind, index, port_num, &opts, &ctx),
            Err(e) => match e.bad_client_warning(&peer) {
                Some(w) => crate::rlog!(Warning, "{w}"),
                None => crate::rlog!(
                    Notice,
                    "SSL connection[{peer}] on port {port_num} closed: {e}"
                ),
            },
        }
    });
}

/// A connection ready for its protocol (after the TLS handshake on a TLS port).
fn open_conn(
    stream: NetStream,
    peer: SocketAddr,
    kind: PortKind,
    index: usize,
    port_num: u16,
    opts: &Rc<PortOptions>,
    ctx: &Rc<WorkerCtx>,
) {
    crate::engine::shared::stats::on_accept();
    // HTTP connections are in the session table too (close(), exists(),
    // getClientInfo() on `$request->fd`), under the same kind of id.
    let fd = crate::engine::shared::session::open(ctx.id as i32, index, port_num, peer);
    if ctx.cfg.mode == crate::engine::config::Mode::Process {
        crate::engine::proc::held::adopt(fd, stream.tcp().as_fd());
    }
    if opts.tls.as_ref().is_some_and(|t| t.keep_client_cert) {
        if let Some(pem) = stream.client_cert_pem() {
            crate::engine::tls::remember_client_cert(fd, pem);
        }
    }
    // In the registry and the drain count from now, before the task first
    // runs: a draining worker waits for it, and its guard frees the slot
    // even if the task never runs or panics.
    if kind == PortKind::Http {
        let (guard, rx) = conns::register(fd, conns::Kind::Http, index, ctx);
        tokio::task::spawn_local(conn::serve(
            stream,
            peer,
            guard,
            rx,
            port_num,
            opts.http2,
            ctx.clone(),
        ));
    } else {
        let (guard, rx) = conns::register(fd, conns::Kind::Stream, index, ctx);
        tokio::task::spawn_local(crate::engine::net::tcp::serve_conn(
            stream,
            guard,
            rx,
            opts.clone(),
            ctx.clone(),
        ));
    }
}

/// A new listening socket with `SO_REUSEPORT` on `shared`'s address (the
/// shared socket gets the option too, so both are in one group).
fn reuse_port_listener(shared: &std::net::TcpListener) -> std::io::Result<TcpListener> {
    let addr = shared.local_addr()?;
    socket2::SockRef::from(shared).set_reuse_port(true)?;
    let s = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    s.set_reuse_address(true)?;
    s.set_reuse_port(true)?;
    if addr.is_ipv6() {
        let _ = s.set_only_v6(false);
    }
    s.bind(&addr.into())?;
    s.listen(512)?;
    s.set_nonblocking(true)?;
    s.set_cloexec(true)?;
    TcpListener::from_std(s.into())
}

/// Accepts on one TCP port until the task is dropped (draining).
async fn accept_loop(
    listener: TcpListener,
    kind: PortKind,
    index: usize,
    opts: Rc<PortOptions>,
    ctx: Rc<WorkerCtx>,
) {
    let port_num = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    if crate::engine::net::listener::is_unix_fd(listener.as_raw_fd()) {
        return accept_unix(listener, kind, index, opts, ctx).await;
    }
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => start_conn(stream, peer, kind, index, port_num, &opts, &ctx),
            Err(e) => {
                crate::rlog!(Warning, "worker#{}: accept() failed: {e}", ctx.id);
                // EMFILE and friends: back off instead of spinning.
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// [`accept_loop`] for a unix stream port (tokio's `accept` wants an IP
/// peer): accepts with [`crate::engine::net::listener::accept_any`].
async fn accept_unix(
    listener: TcpListener,
    kind: PortKind,
    index: usize,
    opts: Rc<PortOptions>,
    ctx: Rc<WorkerCtx>,
) {
    let registered = listener.into_std().and_then(|l| {
        // SAFETY: the std listener owns its descriptor, which stays open for
        // the AsyncFd's whole life (it is the AsyncFd's inner value).
        unsafe { tokio::io::unix::AsyncFd::register(l) }.map_err(|e| e.into_parts().1)
    });
    let l = match registered {
        Ok(l) => l,
        Err(e) => {
            crate::rlog!(Error, "worker#{}: unix listener: {e}", ctx.id);
            return;
        }
    };
    loop {
        let r = l
            .async_io(
                tokio::io::Interest::READABLE,
                crate::engine::net::listener::accept_any,
            )
            .await
            .and_then(|(s, peer)| {
                s.set_nonblocking(true)?;
                Ok((TcpStream::from_std(s)?, peer))
            });
        match r {
            Ok((stream, peer)) => start_conn(stream, peer, kind, index, 0, &opts, &ctx),
            Err(e) => {
                crate::rlog!(Warning, "worker#{}: accept() failed: {e}", ctx.id);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// A TCP port whose connections the PROCESS-mode master hands over.
struct DispatchedPort {
    index: usize,
    kind: PortKind,
    port_num: u16,
    opts: Rc<PortOptions>,
}

/// PROCESS mode: takes connections from the master until it has no more for
/// us (after `stop` fired, we asked it to stop sending).
async fn take_connections(
    mut chan: reactor::WorkerChannel,
    ports: Vec<DispatchedPort>,
    ctx: Rc<WorkerCtx>,
    mut stop: watch::Receiver<bool>,
) {
    let mut stopped = false;
    // Per-message dispatch: a retiring worker hands its connections back
    // (engine::worker::dispatch), so it takes no new ones meanwhile.
    let retire_early = dispatch::per_message(&ctx.cfg);
    loop {
        if !stopped && retire_early && ctx.is_retiring() {
            chan.stop_taking();
            stopped = true;
        }
        let next = if stopped {
            chan.next().await
        } else {
            tokio::select! {
                n = chan.next() => n,
                _ = stop.wait_for(|s| *s) => {
                    chan.stop_taking();
                    stopped = true;
                    continue;
                }
                _ = ctx.retired.notified(), if retire_early => continue,
            }
        };
        match next {
            reactor::Incoming::Conn(stream, peer, index) => {
                let Some(p) = ports.iter().find(|p| p.index == index) else {
                    continue;
                };
                let _ = stream.set_nonblocking(true);
                match TcpStream::from_std(stream) {
                    Ok(s) => start_conn(s, peer, p.kind, index, p.port_num, &p.opts, &ctx),
                    Err(e) => crate::rlog!(
                        Warning,
                        "worker#{}: cannot register a connection: {e}",
                        ctx.id
                    ),
                }
            }
            reactor::Incoming::End => {
                if !stopped && ctx.state() == WorkerState::Ready {
                    // The master is gone: nobody will send us work again.
                    crate::rlog!(
                        Warning,
                        "worker#{}: the master closed our channel, stopping",
                        ctx.id
                    );
                    ctx.stop_self();
                }
                return;
            }
        }
    }
}

/// [`serve`] with any set of ports (none for a task worker).
pub async fn serve_ports(
    id: usize,
    ports: Vec<Port>,
    cfg: Rc<ServerConfig>,
    hooks: Rc<dyn Hooks>,
    stop: impl std::future::Future<Output = ()>,
) -> i32 {
    crate::engine::worker::halt::begin();
    let server_port = ports.first().map(|p| p.socket.local_port()).unwrap_or(0);
    let ctx = WorkerCtx::new(
        id,
        cfg.clone(),
        hooks.clone(),
        server_port,
        request_limit(&cfg),
        WorkerState::Starting,
    );
    // onBufferFull / onBufferEmpty, from any connection's output bound.
    let weak = Rc::downgrade(&ctx);
    crate::engine::net::outflow::set_sink(Some(Rc::new(move |fd, full| {
        if let Some(ctx) = weak.upgrade() {
            if let Outcome::Fatal(code) = ctx.hooks.on_buffer(fd, full) {
                ctx.poison(code);
            }
        }
    })));

    // Each port's own `heartbeat_idle_time`, by port index.
    let mut port_idle: Vec<Option<Duration>> = Vec::new();
    for p in &ports {
        if port_idle.len() <= p.index {
            port_idle.resize(p.index + 1, None);
        }
        port_idle[p.index] = p.opts.heartbeat_idle_time;
    }
    let mut tcp = Vec::new();
    let mut udp = Vec::new();
    let mut unix_dgram = Vec::new();
    let mut dispatched = Vec::new();
    for p in ports {
        let opts = Rc::new(p.opts);
        match p.socket {
            PortSocket::Dispatched(port_num) => dispatched.push(DispatchedPort {
                index: p.index,
                kind: p.kind,
                port_num,
                opts,
            }),
            PortSocket::Tcp(l) => {
                if let Err(e) = l.set_nonblocking(true) {
                    crate::rlog!(Error, "worker#{id}: set_nonblocking: {e}");
                    return 1;
                }
                if cfg.enable_reuse_port && !crate::engine::net::listener::is_unix_fd(l.as_raw_fd())
                {
                    // `enable_reuse_port`: a listening socket of our own
                    // besides the shared one; the kernel spreads new
                    // connections over the group.
                    match reuse_port_listener(&l) {
                        Ok(own) => tcp.push((own, p.kind, p.index, opts.clone())),
                        Err(e) => crate::rlog!(
                            Warning,
                            "worker#{id}: enable_reuse_port: no socket of its own: {e}"
                        ),
                    }
                }
                match TcpListener::from_std(l) {
                    Ok(l) => tcp.push((l, p.kind, p.index, opts)),
                    Err(e) => {
                        crate::rlog!(Error, "worker#{id}: cannot register listener: {e}");
                        return 1;
                    }
                }
            }
            PortSocket::Udp(u) if crate::engine::net::listener::is_unix_fd(u.as_raw_fd()) => {
                let _ = u.set_nonblocking(true);
                let u = std::os::unix::net::UnixDatagram::from(std::os::fd::OwnedFd::from(u));
                match tokio::net::UnixDatagram::from_std(u) {
                    Ok(u) => unix_dgram.push((Rc::new(u), p.index)),
                    Err(e) => {
                        crate::rlog!(Error, "worker#{id}: cannot register unix socket: {e}");
                        return 1;
                    }
                }
            }
            PortSocket::Udp(u) => {
                let _ = u.set_nonblocking(true);
                match tokio::net::UdpSocket::from_std(u) {
                    Ok(u) => udp.push((Rc::new(u), p.index)),
                    Err(e) => {
                        crate::rlog!(Error, "worker#{id}: cannot register UDP socket: {e}");
                        return 1;
                    }
                }
            }
        }
    }
    tokio::pin!(stop);

    // Messages from other processes (tasks, results, routed sends) are read
    // from the start: workerStart may already wait for a task.
    let mut background = Vec::new();
    let mut inbox = None;
    if crate::engine::ipc::is_set_up() {
        let h = hooks.clone();
        let c = ctx.clone();
        let dispatch: crate::engine::ipc::Dispatch = Rc::new(move |m| {
            if m.kind == crate::engine::ipc::Kind::Receive {
                dispatch::on_forwarded(&c, m);
                return;
            }
            if m.kind == crate::engine::ipc::Kind::Packet {
                dispatch::on_packet(&c, m);
                return;
            }
            let Some(m) = dispatch::not_ours(&c, m) else {
                return;
            };
            let task = m.kind == crate::engine::ipc::Kind::Task;
            if let Outcome::Fatal(code) = crate::engine::worker::inbox::dispatch(&h, m) {
                c.poison(code);
            } else if task && is_task_worker() {
                // `task_max_request`: a task counts as a task worker's request.
                c.requests.set(c.requests.get() + 1);
                c.after_request();
            }
        });
        inbox = Some(tokio::task::spawn_local(crate::engine::ipc::inbox_loop(
            dispatch,
        )));
    }

    if let Outcome::Fatal(code) = hooks.on_worker_start(id) {
        return code;
    }
    // PROCESS mode: become a dispatch target before the manager hears
    // we are ready (it then stops the worker we replace).
    // Raw TCP connections handed over to us: their messages may be sent to
    // other workers (per-message dispatch).
    let raw_tcp = dispatched.iter().any(|p| p.kind == PortKind::Stream);
    let mut taking = None;
    if !dispatched.is_empty() {
        match reactor::connect(id as i32).and_then(reactor::WorkerChannel::new) {
            Ok(chan) => {
                taking = Some(tokio::task::spawn_local(take_connections(
                    chan,
                    dispatched,
                    ctx.clone(),
                    ctx.shutdown.subscribe(),
                )));
            }
            Err(e) => {
                crate::rlog!(Error, "worker#{id}: cannot reach the master: {e}");
                return 1;
            }
        }
    }
    let _ = ctx.set_state(WorkerState::Ready);
    crate::engine::ipc::notice::notify_master(crate::engine::ipc::notice::Notice::Ready);

    let mut accepting = Vec::new();
    for (l, kind, index, opts) in tcp {
        accepting.push(tokio::task::spawn_local(accept_loop(
            l,
            kind,
            index,
            opts,
            ctx.clone(),
        )));
    }
    for (u, index) in unix_dgram {
        if is_task_worker() {
            continue;
        }
        accepting.push(tokio::task::spawn_local(
            crate::engine::net::tcp::serve_unix_dgram(u, index, ctx.clone()),
        ));
    }
    for (u, index) in udp {
        if is_task_worker() {
            // A task worker only sends from the server's UDP sockets
            // (`sendto()`), as Swoole's do with the inherited ones.
            crate::engine::net::tcp::add_udp_sender(u);
            continue;
        }
        accepting.push(tokio::task::spawn_local(
            crate::engine::net::tcp::serve_udp(u, index, ctx.clone()),
        ));
    }
    // Loop lag, blocking detection, request deadlines (engine::watchdog).
    background.extend(crate::engine::watchdog::start(&cfg));
    // One sweeper over every connection of this worker. A port's own
    // `heartbeat_idle_time` (listen()->set()) needs no server-wide heartbeat;
    // then the ports without one are never swept, as in Swoole, and the
    // sweep runs every 100 ms so each port's time holds to that.
    let own_idle = port_idle.iter().any(Option::is_some);
    let sweep = match cfg.heartbeat() {
        Some((interval, idle)) if own_idle => {
            Some((interval.min(Duration::from_millis(100)), idle))
        }
        Some(h) => Some(h),
        None if own_idle => Some((Duration::from_millis(100), Duration::MAX)),
        None => None,
    };
    if let Some((interval, idle)) = sweep {
        background.push(tokio::task::spawn_local(conns::sweeper(
            interval, idle, port_idle,
        )));
    }

    loop {
        tokio::select! {
            _ = &mut stop => break,
            _ = ctx.woken() => {
                if ctx.should_stop() {
                    break;
                }
            }
            // `$server->stop()`, or a fatal error no hook could return
            // (a coroutine failing after its first wait): engine::worker::halt.
            _ = crate::engine::worker::halt::wait() => match crate::engine::worker::halt::asked() {
                Some(crate::engine::worker::halt::Asked::Poison(code)) => {
                    ctx.poison(code);
                    break;
                }
                Some(crate::engine::worker::halt::Asked::Stop) => break,
                None => {}
            },
        }
    }

    // Draining: our copy of the listening sockets goes (the accept tasks
    // own them), so the kernel hands new connections to the other workers;
    // open ones finish.
    let _ = ctx.set_state(WorkerState::Draining);
    let had_conns = ctx.conns.get() > 0;
    for t in accepting {
        t.abort();
    }
    crate::engine::net::tcp::forget_udp();
    ctx.shutdown.send_replace(true);
    // Per-message dispatch: a retiring worker's replacement is ready now and
    // reads the inbox of our worker id; we stop reading it, as Swoole's
    // retiring worker stops reading its pipe (else the messages sent to
    // the id could keep coming back to us).
    let stop_inbox = raw_tcp && ctx.is_retiring() && dispatch::per_message(&cfg);
    if let Some(t) = inbox.take() {
        if stop_inbox {
            t.abort();
        } else {
            background.push(t);
        }
    }
    let deadline = Instant::now() + cfg.max_wait_time;
    if let Some(t) = taking {
        // PROCESS mode: take every connection the master sent before it
        // saw our stop, so none is lost in the channel.
        if tokio::time::timeout(cfg.max_wait_time, t).await.is_err() {
            crate::rlog!(
                Warning,
                "worker#{id}: the master did not close our channel in time"
            );
        }
    }
    while ctx.conns.get() > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            crate::rlog!(
                Warning,
                "worker#{id}: {} connection(s) still open after max_wait_time, exiting",
                ctx.conns.get()
            );
            break;
        }
        tokio::select! {
            _ = tokio::time::timeout(left, ctx.drained.notified()) => {}
            // A fatal while draining: the requests still waiting get 503.
            _ = crate::engine::worker::halt::wait() => {}
        }
        if let Some(crate::engine::worker::halt::Asked::Poison(code)) =
            crate::engine::worker::halt::asked()
        {
            ctx.poison(code);
        }
    }
    if let Some(crate::engine::worker::halt::Asked::Poison(code)) =
        crate::engine::worker::halt::asked()
    {
        ctx.poison(code);
    }

    let code = match ctx.poisoned.get() {
        // The interpreter is unusable: no more PHP callbacks.
        Some(code) => code,
        None => {
            // As Swoole: workerExit only when the loop still had work when
            // the worker stopped (open connections, timers, coroutines), and
            // with reload_async again each round while some are left, so the
            // application can clear them, until max_wait_time; workerStop
            // last.
            // Coroutines count as work too: reload_async lets them finish.
            let work = || {
                crate::engine::rt::timer::pending() > 0 || crate::engine::watchdog::coroutines() > 0
            };
            let mut busy = had_conns || work();
            while busy {
                hooks.on_worker_exit(id);
                busy = cfg.reload_async && work();
                if !busy {
                    break;
                }
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    crate::rlog!(
                        Warning,
                        "Worker_reactor_try_to_exit() (ERRNO 9101): worker exit timeout, forced termination"
                    );
                    break;
                }
                tokio::time::sleep(left.min(Duration::from_millis(100))).await;
            }
            hooks.on_worker_stop(id);
            0
        }
    };
    for t in background {
        t.abort();
    }
    crate::engine::worker::halt::end();
    let _ = ctx.set_state(WorkerState::Exited);
    code
}
