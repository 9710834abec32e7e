//! One client connection: hyper's HTTP/1.1 state machine plus our service,
//! which reads the body (bounded by `package_max_length`), hands the request
//! to the hooks and waits for the response head.
//!
//! When the worker drains (reload, recycle, shutdown), a connection is not
//! cut while a client may be sending on it: the next response carries
//! `Connection: close` (hyper then closes after it), and a connection idle at
//! that moment is kept open for a short grace so a request already on its
//! way is still answered.

use std::cell::{Cell, RefCell};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{header, Request, Response, Version};
use hyper::body::Incoming;
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::body::RespBody;
use super::exchange::{start, Answer, Counting};
use super::reqbody::{self, BodyError};
use super::request::HttpRequest;
use super::response::simple;
use super::static_files;
use super::stream::{Counted, IoFlags, Kill};
use crate::engine::config::Http2Settings;
use crate::engine::net::conns::{self, Guard};
use crate::engine::net::outflow::Outflow;
use crate::engine::shared::stats;
use crate::engine::tls::NetStream;
use crate::engine::worker::ctx::WorkerCtx;

/// Header lines hyper parses into a stack buffer (its `DEFAULT_MAX_HEADERS`).
const HYPER_HEADERS: usize = 100;

/// How long a new connection's first request head is waited for to count
/// its lines (`first_head_is_long`); after it hyper serves with the default.
const FIRST_HEAD_WAIT: Duration = Duration::from_millis(20);

/// True when the first request head on `stream` has more than
/// `HYPER_HEADERS` lines. Peeked, not read (hyper reads it next); the head
/// is waited for until it is complete, has that many lines, or
/// `FIRST_HEAD_WAIT` passed (a client usually sends its request with the
/// connection, so this is one `recv(MSG_PEEK)` per connection).
async fn first_head_is_long(stream: &TcpStream) -> bool {
    let deadline = Instant::now() + FIRST_HEAD_WAIT;
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match tokio::time::timeout_at(deadline.into(), stream.peek(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => n,
            _ => return false,
        };
        let head = &buf[..n];
        let end = head.windows(4).position(|w| w == b"\r\n\r\n");
        let lines = head[..end.unwrap_or(n)]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        if lines > HYPER_HEADERS {
            return true;
        }
        if end.is_some() || n == buf.len() || Instant::now() >= deadline {
            return false;
        }
        // Part of the head is in: look again once more may have arrived.
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// `starts_with_h2_preface` and `first_head_is_long` boxed: their timers
/// take room only while they run, not in every connection's task.
fn peek_h2(s: &TcpStream) -> Pin<Box<dyn std::future::Future<Output = bool> + '_>> {
    Box::pin(starts_with_h2_preface(s))
}

fn peek_long(s: &TcpStream) -> Pin<Box<dyn std::future::Future<Output = bool> + '_>> {
    Box::pin(first_head_is_long(s))
}

/// The client connection preface of HTTP/2 (RFC 9113 §3.4).
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// True when `stream` starts with the HTTP/2 preface (h2c by prior
/// knowledge). Peeked, like `first_head_is_long`; a client whose first
/// bytes differ from it is HTTP/1 at once.
async fn starts_with_h2_preface(stream: &TcpStream) -> bool {
    let deadline = Instant::now() + FIRST_HEAD_WAIT;
    let mut buf = [0u8; 24];
    loop {
        let n = match tokio::time::timeout_at(deadline.into(), stream.peek(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => n,
            _ => return false,
        };
        if buf[..n] != H2_PREFACE[..n] {
            return false;
        }
        if n == H2_PREFACE.len() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// hyper's executor for HTTP/2 streams: each is a task on the worker's
/// `LocalSet` (the service futures are `!Send`).
#[derive(Clone, Copy)]
struct LocalExec;

impl<F: std::future::Future + 'static> hyper::rt::Executor<F> for LocalExec {
    fn execute(&self, fut: F) {
        tokio::task::spawn_local(fut);
    }
}

/// How long a draining worker keeps an idle keep-alive connection open for
/// a request that may already be on its way (capped at half of
/// `max_wait_time`).
const DRAIN_IDLE_GRACE: Duration = Duration::from_secs(1);

/// Drops HTTP connection `fd` of this worker (a response in progress is
/// lost, as in Swoole); false when this worker has no such connection.
pub fn close(fd: i64) -> bool {
    is_local(fd) && conns::close(fd, false)
}

/// True when `fd` is an HTTP connection of this worker.
pub fn is_local(fd: i64) -> bool {
    conns::get(fd).is_some_and(|c| c.kind() == conns::Kind::Http)
}

/// Runs a hyper connection (HTTP/1 or HTTP/2) until it ends, the script
/// closes it or the heartbeat drops it (`Some`: how it ended, for
/// [`finish`]), or the worker drains (`None`).
async fn until_drain<C>(
    mut conn: Pin<&mut C>,
    ctx: &WorkerCtx,
    kill: &Kill,
) -> Option<Result<(), hyper::Error>>
where
    C: std::future::Future<Output = Result<(), hyper::Error>>,
{
    let mut shutdown = ctx.shutdown.subscribe();
    if *shutdown.borrow_and_update() {
        return None;
    }
    tokio::select! {
        // In order (no random start): the connection is what wakes us.
        biased;
        res = conn.as_mut() => Some(res),
        _ = shutdown.changed() => None,
        // `close()`, or the heartbeat (conns::sweeper) found it idle.
        _ = kill.notified() => Some(Ok(())),
    }
}

/// Draining, before hyper is told to stop: a request arriving now is
/// answered with `Connection: close` (see `handle`) and hyper closes after
/// it (HTTP/2: GOAWAY). hyper's graceful_shutdown would close an idle
/// connection at once, racing a client that is sending its next request
/// right now; so wait a little. A connection is not closed while request
/// bytes wait unread in the kernel (they arrived with the timer): they are
/// answered first, up to max_wait_time. When the whole server stops (no
/// worker takes over), an idle connection is closed at once, as Swoole's
/// are: a client's next request then finds it closed and the port refused.
/// `Some`: the connection ended meanwhile.
async fn drain_grace<C>(
    mut conn: Pin<&mut C>,
    ctx: &WorkerCtx,
    kill: &Kill,
    raw: std::os::fd::RawFd,
) -> Option<Result<(), hyper::Error>>
where
    C: std::future::Future<Output = Result<(), hyper::Error>>,
{
    let grace = DRAIN_IDLE_GRACE.min(ctx.cfg.max_wait_time / 2);
    let until = Instant::now() + ctx.cfg.max_wait_time;
    if crate::engine::shared::stats::server_stopping() && !has_unread(raw) {
        return None;
    }
    loop {
        tokio::select! {
            biased;
            res = conn.as_mut() => return Some(res),
            _ = kill.notified() => return Some(Ok(())),
            _ = tokio::time::sleep(grace) => {}
        }
        if !has_unread(raw) || Instant::now() >= until {
            return None;
        }
    }
}

/// True when bytes the client sent wait unread on socket `raw`.
fn has_unread(raw: std::os::fd::RawFd) -> bool {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD on a socket this connection owns, writing one int.
    let r = unsafe { libc::ioctl(raw, libc::FIONREAD, &mut n) };
    r == 0 && n > 0
}

/// Serves one HTTP connection accepted on local port `port`, registered
/// by `guard` (`conns::register`; its session slot is freed when the guard
/// drops, unless a WebSocket task took the id over).
pub async fn serve(
    stream: NetStream,
    peer: SocketAddr,
    guard: Guard,
    rx: conns::Receiver,
    port: u16,
    http2: Option<Http2Settings>,
    ctx: Rc<WorkerCtx>,
) {
    let entry = guard.conn().clone();
    // `onConnect`, as Swoole fires it for HTTP and WebSocket servers too.
    if let crate::engine::hooks::Outcome::Fatal(code) =
        ctx.hooks
            .on_connect(entry.fd(), ctx.id as i32, entry.port())
    {
        ctx.poison(code);
    }
    let kill = Rc::new(Kill {
        conn: entry.clone(),
        rx: RefCell::new(rx),
        armed: Cell::new(false),
        h1: Cell::new(false),
    });
    let local = stream.local_addr().ok();
    let last = entry.activity().clone();
    // HTTP/2: chosen by ALPN under TLS, by its preface in clear text (h2c
    // with prior knowledge).
    let h2 = match (&http2, &stream) {
        (None, _) => false,
        (Some(_), NetStream::Tls(_)) => stream.alpn_h2(),
        (Some(_), NetStream::Plain(s)) => peek_h2(s).await,
    };
    kill.h1.set(!h2);
    // (Under TLS the head cannot be peeked: the configured count is used.)
    let many_headers = !h2
        && ctx.cfg.http_max_headers > HYPER_HEADERS
        && match &stream {
            NetStream::Plain(s) => peek_long(s).await,
            NetStream::Tls(_) => true,
        };
    let flags = IoFlags::default();
    flags.set(IoFlags::FLUSHED, true);
    let mut counted = Counted(stream, last, flags.clone(), Bytes::new());
    // (What crosses the fast path's await here is kept small: it is
    // every idle keep-alive connection's task.)
    let mut replay = None;
    if !h2 && super::fast::eligible(&ctx, many_headers, &peer, &counted) {
        let at = (peer, local, port);
        let flow = entry.flow().clone();
        match super::fast::serve(&mut counted, &ctx, &entry, &kill, at, flow).await {
            super::fast::End::Closed { failed } => {
                finish_as(&ctx, guard, failed);
                return;
            }
            super::fast::End::Handoff { rest, replay: r } => {
                counted.3 = rest;
                replay = r;
            }
        }
    }
    // Boxed: while a connection is on the fast path (or idle there), its
    // task holds none of hyper's state (memory per idle connection). Built
    // in a statement of its own: inside the `.await` expression the unboxed
    // future would get a slot in this task's state too.
    let at = (peer, local, port);
    let hyper = Hyper {
        h2,
        http2,
        many_headers,
        replay,
    };
    let rest = Box::pin(serve_hyper(counted, at, guard, kill, flags, hyper, ctx));
    rest.await;
}

/// What `serve_hyper` is told of the connection besides its socket.
struct Hyper {
    h2: bool,
    http2: Option<Http2Settings>,
    many_headers: bool,
    /// The fast path's answer to the first request in the socket's
    /// buffered bytes.
    replay: Option<Box<Response<RespBody>>>,
}

/// Serves the rest of a connection with hyper (HTTP/1, or HTTP/2).
async fn serve_hyper(
    counted: Counted,
    at: (SocketAddr, Option<SocketAddr>, u16),
    guard: Guard,
    kill: Rc<Kill>,
    flags: IoFlags,
    hyper: Hyper,
    ctx: Rc<WorkerCtx>,
) {
    let Hyper {
        h2,
        http2,
        many_headers,
        replay,
    } = hyper;
    let (peer, local, port) = at;
    let entry = guard.conn().clone();
    let fd = entry.fd();
    let flow = entry.flow().clone();
    // PROCESS mode, clear text: an idle connection of a draining worker goes
    // back to the master (which holds a copy) for another worker, instead of
    // being closed under a client that may be sending on it (`drive_h1`).
    let give_back = !h2
        && counted.is_plain()
        && ctx.cfg.mode == crate::engine::config::Mode::Process
        && crate::engine::proc::reactor::is_process_mode();
    let raw = std::os::fd::AsRawFd::as_raw_fd(counted.0.tcp());
    let svc_ctx = ctx.clone();
    let svc_entry = entry.clone();
    let svc_kill = kill.clone();
    // Set once a response told the client the connection ends (such a
    // connection is not handed back).
    let said_close = Rc::new(Cell::new(false));
    let svc_said_close = said_close.clone();
    let svc_flags = flags.clone();
    // HTTP/2 stream ids, in the order hyper hands the streams over (a
    // client opens them in increasing order: 1, 3, 5, ...).
    let next_stream = Cell::new(1u32);
    // The fast path's answer to a request it read but will not write
    // itself (`fast::End::Handoff`): hyper reads that request again and
    // this is its response.
    let preset: Rc<Cell<Option<Response<RespBody>>>> = Rc::new(Cell::new(replay.map(|r| *r)));
    let svc_preset = preset.clone();
    let svc = service_fn(move |req| {
        let ctx = svc_ctx.clone();
        let entry = svc_entry.clone();
        let kill = svc_kill.clone();
        let flow = flow.clone();
        let said_close = svc_said_close.clone();
        let svc_flags = svc_flags.clone();
        let stream_id = if h2 {
            let id = next_stream.get();
            next_stream.set(id.wrapping_add(2));
            id
        } else {
            0
        };
        let replay = svc_preset.take();
        entry.begin_request();
        async move {
            let mut r = match replay {
                Some(resp) => {
                    // Its body is in the buffer: read it, so the connection
                    // can go on after the answer.
                    let _ = http_body_util::BodyExt::collect(req.into_body()).await;
                    Ok(resp)
                }
                None => handle(req, ctx, fd, peer, local, port, stream_id, flow).await,
            };
            entry.end_request();
            if let Ok(resp) = &mut r {
                if let Some(n) = resp.extensions().get::<super::response::ExactNames>() {
                    if h2 {
                        let n = n.clone();
                        n.drop_stand_ins(resp.headers_mut());
                    } else {
                        svc_flags.expect_exact(n);
                    }
                }
                if resp
                    .headers()
                    .get(header::CONNECTION)
                    .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"close"))
                {
                    said_close.set(true);
                }
            }
            if kill.drops_answer() {
                // Closed by the script: write nothing; the task drops the
                // connection when it next looks at `kill`.
                std::future::pending::<()>().await;
            }
            let mut r = r;
            if kill.is_set() {
                // Ended, then closed: the answer goes, then hyper closes.
                if let Ok(resp) = &mut r {
                    resp.headers_mut()
                        .insert(header::CONNECTION, http::HeaderValue::from_static("close"));
                }
                said_close.set(true);
            }
            r
        }
    });
    if h2 {
        let mut b = http2::Builder::new(LocalExec);
        let h = http2.unwrap_or_default();
        b.timer(hyper_util::rt::TokioTimer::new())
            .initial_stream_window_size(h.initial_window_size)
            .max_frame_size(h.max_frame_size)
            .max_concurrent_streams(h.max_concurrent_streams.or(Some(128)));
        if let Some(n) = h.header_table_size {
            b.header_table_size(n);
        }
        if let Some(n) = h.max_header_list_size {
            b.max_header_list_size(n);
        }
        // PING/GOAWAY on demand (`Response::ping()`/`goaway()`): see h2ctl.
        let ctl = Rc::new(super::h2ctl::Ctl::default());
        let _h2 = super::h2ctl::register(fd, ctl.clone());
        let io = TokioIo::new(super::h2ctl::H2Tap::new(counted, ctl));
        // Boxed, like the HTTP/1 one below: a connection's task keeps only
        // the state of the path it is on (memory per idle connection).
        let conn = Box::pin(b.serve_connection(io, svc));
        Box::pin(drive_h2(conn, ctx, guard, kill, raw)).await;
        return;
    }
    // Title-Case header names, as Swoole and nginx send them. It costs ~9% of
    // a hello-world request's user CPU (bench/RESULTS.md); drop-in wins.
    let io = TokioIo::new(counted);
    let builder = h1_builder(&ctx, many_headers);
    let conn = builder.serve_connection(io, svc).with_upgrades();
    Box::pin(drive_h1(
        conn, builder, ctx, guard, kill, flags, said_close, give_back, raw,
    ))
    .await;
}

/// Runs an HTTP/2 connection until it ends, the script closes it or the
/// worker drains (then GOAWAY after `drain_grace`).
async fn drive_h2<C>(
    mut conn: Pin<Box<C>>,
    ctx: Rc<WorkerCtx>,
    guard: Guard,
    kill: Rc<Kill>,
    raw: std::os::fd::RawFd,
) where
    C: std::future::Future<Output = Result<(), hyper::Error>> + GracefulShutdown,
{
    let ended = match until_drain(conn.as_mut(), &ctx, &kill).await {
        Some(res) => Some(res),
        None => drain_grace(conn.as_mut(), &ctx, &kill, raw).await,
    };
    let res = match ended {
        Some(res) => res,
        None => {
            conn.as_mut().shut_down();
            tokio::select! {
                res = conn.as_mut() => res,
                _ = kill.notified() => Ok(()),
            }
        }
    };
    finish(&ctx, guard, res);
}

/// hyper's `graceful_shutdown` of an HTTP/2 connection.
trait GracefulShutdown {
    fn shut_down(self: Pin<&mut Self>);
}

impl<I, S, E> GracefulShutdown for http2::Connection<I, S, E>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
    S: hyper::service::HttpService<Incoming, ResBody = RespBody>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    E: hyper::rt::bounds::Http2ServerConnExec<S::Future, RespBody>,
{
    fn shut_down(self: Pin<&mut Self>) {
        self.graceful_shutdown();
    }
}

/// hyper's HTTP/1 settings for a connection of this worker.
fn h1_builder(ctx: &WorkerCtx, many_headers: bool) -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(super::header_timer::HeaderTimer)
        .header_read_timeout(ctx.cfg.http_header_timeout)
        .title_case_headers(true)
        .max_buf_size(ctx.cfg.http_max_header_size.max(8192))
        .max_header_size(ctx.cfg.http_max_header_size)
        .keep_alive(true);
    // hyper's default count sits on the stack; more is a heap buffer for
    // every request of the connection (~600 instructions of a ~26 000
    // instruction request). So a connection gets `http_max_headers` only when
    // its first request needs more than the default (`first_head_is_long`).
    let max = ctx.cfg.http_max_headers;
    if max < HYPER_HEADERS || (max > HYPER_HEADERS && many_headers) {
        builder.max_headers(max);
    }
    builder
}

/// Runs an HTTP/1 connection ([`until_drain`]), with two more ways not to
/// lose a request when the worker drains:
/// - PROCESS mode (`give_back`): hyper is told to stop at the next message
///   boundary (at once when the connection is idle) without shutting the
///   socket down; a connection that then has nothing unread in hyper's
///   buffer, nothing unflushed and no `Connection: close` said goes back to
///   the master, which hands its own copy of the socket to another worker.
///   Bytes the client sent meanwhile wait in the kernel for that worker: no
///   request is lost to a recycle or a reload (Swoole's master, which owns
///   every connection, never drops one).
/// - BASE mode: an idle connection is kept open for a short grace
///   ([`drain_grace`], as HTTP/2) before hyper stops.
///
/// In both, a client part-way through its next request head when hyper
/// stopped (those bytes are in hyper's buffer) is answered here, with
/// `Connection: close`, instead of being cut.
#[allow(clippy::too_many_arguments)]
async fn drive_h1<C>(
    mut conn: C,
    mut builder: http1::Builder,
    ctx: Rc<WorkerCtx>,
    guard: Guard,
    kill: Rc<Kill>,
    flags: IoFlags,
    said_close: Rc<Cell<bool>>,
    give_back: bool,
    raw: std::os::fd::RawFd,
) where
    C: HandBack,
{
    let fd = guard.conn().fd();
    let ended = match until_drain(Pin::new(&mut conn), &ctx, &kill).await {
        Some(res) => Some(res),
        None if give_back => None,
        None => drain_grace(Pin::new(&mut conn), &ctx, &kill, raw).await,
    };
    if let Some(res) = ended {
        finish(&ctx, guard, res);
        return;
    }
    // hyper's closing sends no FIN: the connection may go on (given back,
    // or a request begun answered here); the socket is shut down or closed
    // when the connection ends (`finish`, or the drop of the last descriptor).
    flags.set(IoFlags::KEEP_OPEN, true);
    conn.stop_at_boundary();
    let res = tokio::select! {
        res = &mut conn => res,
        _ = kill.notified() => {
            finish(&ctx, guard, Ok(()));
            return;
        }
    };
    let whole = res.is_ok() && !said_close.get() && flags.has(IoFlags::FLUSHED);
    builder.keep_alive(false);
    match (whole, conn.rest(&builder)) {
        (true, Rest::Begun(rest)) => {
            crate::rlog!(
                Debug,
                "draining: connection {fd} has a request begun, answering it here"
            );
            flags.set(IoFlags::KEEP_OPEN, false);
            let res = tokio::select! {
                res = rest => res,
                _ = kill.notified() => Ok(()),
            };
            finish(&ctx, guard, res);
        }
        (true, Rest::Empty) if give_back => {
            match crate::engine::proc::reactor::give_back_conn(fd) {
                Some(_) => finish(&ctx, guard, Ok(())),
                None => finish(&ctx, guard, res),
            }
        }
        _ => finish(&ctx, guard, res),
    }
}

/// What is left of a drained HTTP/1 connection once hyper stopped.
enum Rest {
    /// Upgraded (WebSocket): not ours to hand back.
    Upgraded,
    /// Nothing unread in hyper's buffer.
    Empty,
    /// Part of the next request was read: the rest of the connection,
    /// served over `builder` with those bytes first.
    Begun(Pin<Box<dyn std::future::Future<Output = Result<(), hyper::Error>>>>),
}

/// What [`drive_h1`] needs of hyper's HTTP/1 connection.
trait HandBack: std::future::Future<Output = Result<(), hyper::Error>> + Unpin + Sized {
    /// `graceful_shutdown`: close when idle, else after the current message.
    fn stop_at_boundary(&mut self);
    /// After the future resolved: what is left in hyper's read buffer.
    /// Unless that is a request begun, drops the connection, and so this
    /// worker's descriptor of the socket (without a shutdown).
    fn rest(self, builder: &http1::Builder) -> Rest;
}

impl<S> HandBack for hyper::server::conn::http1::UpgradeableConnection<TokioIo<Counted>, S>
where
    S: hyper::service::HttpService<Incoming, ResBody = RespBody> + Unpin + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    fn stop_at_boundary(&mut self) {
        Pin::new(self).graceful_shutdown();
    }

    fn rest(self, builder: &http1::Builder) -> Rest {
        match self.into_parts() {
            None => Rest::Upgraded,
            Some(p) if p.read_buf.is_empty() && p.io.inner().3.is_empty() => Rest::Empty,
            Some(p) => {
                // hyper's buffer first, then what it had not read yet.
                let mut io = p.io.into_inner();
                if !io.3.is_empty() {
                    let mut all = bytes::BytesMut::from(&p.read_buf[..]);
                    all.extend_from_slice(&io.3);
                    io.3 = all.freeze();
                } else {
                    io.3 = p.read_buf;
                }
                Rest::Begun(Box::pin(
                    builder.serve_connection(TokioIo::new(io), p.service),
                ))
            }
        }
    }
}

/// A WebSocket upgrade's socket out of hyper's `Upgraded`, for the
/// WebSocket task to read and write itself (docs/internals.md, "WebSocket
/// connections"), with the bytes already read past the handshake (hyper's
/// read buffer, then what `Counted` had read ahead), which come first.
/// `Err` gives back an `Upgraded` over something else. (Handed to
/// `ws::upgrade` with each request, so that `ws` need not import this
/// module, which imports it.)
pub fn take_upgraded(
    up: hyper::upgrade::Upgraded,
) -> Result<(NetStream, Bytes), hyper::upgrade::Upgraded> {
    let p = up.downcast::<TokioIo<Counted>>()?;
    let c = p.io.into_inner();
    let ahead = match (p.read_buf.is_empty(), c.3.is_empty()) {
        (_, true) => p.read_buf,
        (true, false) => c.3,
        (false, false) => {
            let mut all = bytes::BytesMut::from(&p.read_buf[..]);
            all.extend_from_slice(&c.3);
            all.freeze()
        }
    };
    Ok((c.0, ahead))
}

/// The connection ended: `disconnect` for a WebSocket server's HTTP
/// connection that did not become a WebSocket one, then the guard's drop
/// (registry, session slot unless a WebSocket task owns the id, drain).
fn finish(ctx: &WorkerCtx, guard: Guard, res: Result<(), hyper::Error>) {
    if let Err(e) = &res {
        // A client that vanished or sent garbage is routine; keep it quiet.
        crate::rlog!(Debug, "connection ended: {e}");
    }
    finish_as(ctx, guard, res.is_err());
}

/// [`finish`], told only whether the connection failed.
fn finish_as(ctx: &WorkerCtx, guard: Guard, failed: bool) {
    stats::on_close(failed);
    guard.unregister();
    let fd = guard.conn().fd();
    if ctx.cfg.ws.on_port(guard.conn().port()) && crate::engine::ws::http_closed(ctx, fd) {
        guard.keep_session();
    }
    drop(guard);
}

fn wants_keep_alive<B>(req: &Request<B>) -> bool {
    // Case-insensitive substring search in place (no lower-cased copy).
    let conn = req
        .headers()
        .get(header::CONNECTION)
        .and_then(|v| v.to_str().ok())
        .map(str::as_bytes);
    let has = |c: &[u8], token: &[u8]| {
        c.windows(token.len())
            .any(|w| w.eq_ignore_ascii_case(token))
    };
    match req.version() {
        Version::HTTP_10 => conn.is_some_and(|c| has(c, b"keep-alive")),
        _ => !conn.is_some_and(|c| has(c, b"close")),
    }
}

#[allow(clippy::too_many_arguments)]
async fn handle(
    req: Request<Incoming>,
    ctx: Rc<WorkerCtx>,
    fd: i64,
    peer: SocketAddr,
    local: Option<SocketAddr>,
    port: u16,
    stream_id: u32,
    flow: Rc<Outflow>,
) -> Result<Response<RespBody>, Infallible> {
    if super::gate::over_server_limit(&ctx.cfg) {
        // Swoole answers before the request reaches a worker, then closes.
        return Ok(simple(503, "", true));
    }
    let counting = Counting::start();
    // Past `worker_max_concurrency` the request waits here for its turn
    // (counted as in flight meanwhile, as Swoole counts a queued one).
    let queue = super::gate::worker_queue(&ctx.cfg);
    let _turn = match &queue {
        Some(sem) => match super::gate::enter_unless_draining(sem, &ctx).await {
            Some(turn) => turn,
            // As Swoole: a request still waiting in the queue when the
            // worker restarts is answered 503 (and its connection closed)
            // once the running one is done.
            None => {
                let mut resp = simple(503, "", true);
                counting.end(&ctx, &mut resp);
                return Ok(resp);
            }
        },
        None => None,
    };
    // HTTP/1: hyper leaves out a HEAD response's body itself; HTTP/2 sends
    // what it is given, and a DATA frame on a HEAD stream is a protocol error.
    let head_h2 = req.version() == Version::HTTP_2 && req.method() == http::Method::HEAD;
    let Ok(mut resp) = handle_inner(req, &ctx, fd, peer, local, port, stream_id, flow).await;
    if head_h2 {
        *resp.body_mut() = RespBody::empty();
    }
    counting.end(&ctx, &mut resp);
    Ok(resp)
}

/// RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host header (an
/// HTTP/1.0 one at most one). In absolute form (`GET http://a/b`) the
/// target's authority is the host, whatever Host said (§3.2.2).
fn check_host(req: &mut Request<Incoming>) -> bool {
    if req.version() == Version::HTTP_2 {
        // RFC 9113 §8.3.1: :authority stands for Host.
        if !req.headers().contains_key(header::HOST) {
            if let Some(v) = req
                .uri()
                .authority()
                .and_then(|a| header::HeaderValue::from_str(a.as_str()).ok())
            {
                req.headers_mut().insert(header::HOST, v);
            }
        }
        return true;
    }
    // Two Host lines are refused (which one names the resource?); none is
    // served, in HTTP/1.1 too, as Swoole serves it (docs/compat.md).
    if req.headers().get_all(header::HOST).iter().nth(1).is_some() {
        return false;
    }
    if let Some(auth) = req.uri().authority() {
        match header::HeaderValue::from_str(auth.as_str()) {
            Ok(v) => {
                req.headers_mut().insert(header::HOST, v);
            }
            Err(_) => return false,
        }
    }
    true
}

/// The static handler's answer, if the request is one it serves.
fn static_response(
    cfg: &crate::engine::config::ServerConfig,
    req: &Request<Incoming>,
    keep_alive: bool,
) -> Option<Response<RespBody>> {
    let root = cfg.document_root.as_deref()?;
    let settings = static_files::Settings {
        root,
        locations: &cfg.static_handler_locations,
        rewrite: &cfg.url_rewrite_rules,
        index_files: &cfg.http_index_files,
        autoindex: cfg.http_autoindex,
    };
    let target = req.uri().path_and_query().map_or("/", |p| p.as_str());
    match static_files::resolve_target(&settings, target)? {
        static_files::Target::File(file) => {
            static_files::serve(&file, req.method(), req.headers(), keep_alive)
        }
        static_files::Target::Listing { dir, url } => static_files::listing(&dir, &url, keep_alive),
        static_files::Target::NotFound => Some(static_files::not_found()),
    }
}

/// The largest body taken: `package_max_length`, plus
/// `upload_max_filesize` for a multipart form (Swoole streams the files of
/// such a body to disk past `package_max_length`).
fn body_limit(cfg: &crate::engine::config::ServerConfig, req: &Request<Incoming>) -> usize {
    let multipart = cfg.upload_max_filesize > 0
        && req.headers().get(header::CONTENT_TYPE).is_some_and(|v| {
            let v = v.as_bytes();
            v.len() >= 19 && v[..19].eq_ignore_ascii_case(b"multipart/form-data")
        });
    if multipart {
        cfg.package_max_length
            .saturating_add(cfg.upload_max_filesize)
    } else {
        cfg.package_max_length
    }
}

/// RFC 9112 §3.2: the request target is ASCII (raw UTF-8 must be
/// percent-encoded); Swoole's parser answers such a target 400 too. The
/// `http` crate's `Uri` lets bytes above 0x7F through.
fn target_is_ascii(req: &Request<Incoming>) -> bool {
    let uri = req.uri();
    uri.path().is_ascii() && uri.query().is_none_or(str::is_ascii)
}

#[allow(clippy::too_many_arguments)]
async fn handle_inner(
    mut req: Request<Incoming>,
    ctx: &Rc<WorkerCtx>,
    fd: i64,
    peer: SocketAddr,
    local: Option<SocketAddr>,
    port: u16,
    stream_id: u32,
    flow: Rc<Outflow>,
) -> Result<Response<RespBody>, Infallible> {
    if ctx.poisoned.get().is_some() {
        return Ok(simple(503, "", true));
    }
    // (Over a unix socket any Host lines are taken, as Swoole takes them.)
    if !check_host(&mut req) && !crate::engine::net::listener::is_unix_peer(&peer) {
        return Ok(simple(400, "", true));
    }
    if !target_is_ascii(&req) {
        return Ok(simple(400, "", true));
    }
    // Upgrades on a WebSocket server, or on a port of another server that
    // set `open_websocket_protocol`.
    if (ctx.cfg.ws.enabled || ctx.cfg.ws.ports != 0)
        && crate::engine::ws::is_upgrade(&req)
        && crate::engine::net::conns::get(fd).is_some_and(|c| ctx.cfg.ws.on_port(c.port()))
    {
        return Ok(Box::pin(crate::engine::ws::upgrade(
            req,
            ctx.clone(),
            peer,
            local,
            fd,
            port,
            take_upgraded,
        ))
        .await);
    }
    let has_body = !http_body::Body::is_end_stream(req.body());
    let keep_alive = wants_keep_alive(&req);
    let chunked_in = has_body && req.headers().contains_key(header::TRANSFER_ENCODING);
    let cfg = &ctx.cfg;

    // As Swoole, a request without a body may be a static file's.
    if cfg.enable_static_handler && !has_body {
        if let Some(resp) = static_response(cfg, &req, keep_alive) {
            return Ok(resp);
        }
    }

    let max = body_limit(cfg, &req);
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        // Answer before reading a byte of it; hyper closes the connection
        // because the body was left unread.
        return Ok(simple(413, "", true));
    }

    let (parts, body) = req.into_parts();
    // Most requests have no body: nothing to poll. A body is read through
    // a boxed future, which keeps this (per-request) future small.
    let body = if !has_body {
        Ok(Bytes::new())
    } else {
        Box::pin(reqbody::read(
            body,
            reqbody::Limits {
                max,
                timeout: cfg.http_body_timeout,
                memory: cfg.http_body_buffer_size,
                tmp_dir: &cfg.upload_tmp_dir,
            },
        ))
        .await
    };
    let body = match body {
        Ok(b) => b,
        Err(BodyError::TooLarge) => return Ok(simple(413, "", true)),
        Err(BodyError::Io) => return Ok(simple(400, "", true)),
        Err(BodyError::Timeout) => return Ok(simple(408, "", true)),
        Err(BodyError::Spool) => return Ok(simple(500, "", true)),
    };

    let request = HttpRequest::new(
        fd,
        parts.version,
        stream_id,
        parts.method,
        parts.uri,
        parts.headers.into(),
        body,
        (peer, local, port),
    );
    Ok(
        match start(request, ctx, keep_alive, chunked_in, flow, None) {
            Answer::Now(resp) => resp,
            // (The fast path's only.)
            Answer::Held(mut rx) => rx.try_recv().unwrap_or_else(|_| simple(500, "", true)),
            Answer::Later(wait) => wait.await,
        },
    )
}
