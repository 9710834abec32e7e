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
use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::{Bytes, BytesMut};
use http::{header, Request, Response, Version};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use super::body::RespBody;
use super::request::HttpRequest;
use super::response::{simple, Coding, RespContext, Responder};
use super::static_files;
use crate::engine::hooks::Outcome;
use crate::engine::stats;
use crate::engine::worker::WorkerCtx;

/// Largest request head hyper buffers before answering 431.
const MAX_HEAD: usize = 64 * 1024;

/// How long a draining worker keeps an idle keep-alive connection open for
/// a request that may already be on its way (capped at half of
/// `max_wait_time`).
const DRAIN_IDLE_GRACE: Duration = Duration::from_secs(1);

/// The client socket, counting bytes for `stats()` and noting when data
/// last moved (for the heartbeat).
/// (`Send`, because hyper's upgrade hands the socket over as a `Send` box.)
struct Counted(TcpStream, Activity);

/// When data last moved, in milliseconds since `Activity::base()`.
#[derive(Clone)]
struct Activity(Arc<AtomicU64>);

impl Activity {
    fn base() -> Instant {
        static BASE: OnceLock<Instant> = OnceLock::new();
        *BASE.get_or_init(Instant::now)
    }

    fn new() -> Self {
        let a = Activity(Arc::new(AtomicU64::new(0)));
        a.set();
        a
    }

    fn set(&self) {
        let ms = Self::base().elapsed().as_millis() as u64;
        self.0.store(ms, Ordering::Relaxed);
    }

    fn elapsed(&self) -> Duration {
        let now = Self::base().elapsed().as_millis() as u64;
        Duration::from_millis(now.saturating_sub(self.0.load(Ordering::Relaxed)))
    }
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let res = Pin::new(&mut self.0).poll_read(cx, buf);
        let n = buf.filled().len() - before;
        if n > 0 {
            stats::on_recv(n);
            self.1.set();
        }
        res
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let res = Pin::new(&mut self.0).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = res {
            stats::on_send(n);
            self.1.set();
        }
        res
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let res = Pin::new(&mut self.0).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = res {
            stats::on_send(n);
            self.1.set();
        }
        res
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// Resolves when the connection has been silent for the heartbeat's idle
/// time with no request in progress; never without a heartbeat.
async fn idle_watch(ctx: Rc<WorkerCtx>, last: Activity, inflight: Rc<Cell<usize>>) {
    let Some((every, idle)) = ctx.cfg.heartbeat() else {
        return std::future::pending().await;
    };
    loop {
        tokio::time::sleep(every).await;
        if inflight.get() == 0 && last.elapsed() >= idle {
            return;
        }
    }
}

thread_local! {
    /// This worker's HTTP connections: connection id -> what wakes its task
    /// to drop the connection (`$server->close($request->fd)`).
    static OPEN: Box<RefCell<HashMap<i64, Rc<Kill>>>> = Box::new(RefCell::new(HashMap::new()));
}

/// `$server->close()` of one HTTP connection: wakes its task, and tells a
/// request being answered not to write its (default 500) response.
#[derive(Default)]
struct Kill {
    notify: Notify,
    set: Cell<bool>,
}

/// Drops HTTP connection `fd` of this worker (a response in progress is
/// lost, as in Swoole); false when this worker has no such connection.
pub fn close(fd: i64) -> bool {
    let n = OPEN.with(|t| t.borrow().get(&fd).cloned());
    match n {
        Some(k) => {
            k.set.set(true);
            k.notify.notify_one();
            true
        }
        None => false,
    }
}

/// True when `fd` is an HTTP connection of this worker.
pub fn is_local(fd: i64) -> bool {
    OPEN.with(|t| t.borrow().contains_key(&fd))
}

/// Serves one HTTP connection accepted on local port `port`, known as
/// connection id `fd` (its session slot is freed when it ends, unless a
/// WebSocket task took it over).
pub async fn serve(stream: TcpStream, peer: SocketAddr, fd: i64, port: u16, ctx: Rc<WorkerCtx>) {
    let kill = Rc::new(Kill::default());
    OPEN.with(|t| t.borrow_mut().insert(fd, kill.clone()));
    let local = stream.local_addr().ok();
    let last = Activity::new();
    let inflight = Rc::new(Cell::new(0usize));
    let io = TokioIo::new(Counted(stream, last.clone()));
    let svc_ctx = ctx.clone();
    let svc_inflight = inflight.clone();
    let svc_kill = kill.clone();
    let svc = service_fn(move |req| {
        let ctx = svc_ctx.clone();
        let inflight = svc_inflight.clone();
        let kill = svc_kill.clone();
        inflight.set(inflight.get() + 1);
        async move {
            let r = handle(req, ctx, fd, peer, local, port).await;
            inflight.set(inflight.get() - 1);
            if kill.set.get() {
                // Closed by the script: write nothing; the task drops the
                // connection when it next looks at `kill`.
                std::future::pending::<()>().await;
            }
            r
        }
    });
    let idle = idle_watch(ctx.clone(), last, inflight);
    tokio::pin!(idle);
    // Title-Case header names, as Swoole and nginx send them. It costs ~9% of
    // a hello-world request's user CPU (bench/RESULTS.md); drop-in wins.
    let mut builder = http1::Builder::new();
    builder
        .timer(super::header_timer::HeaderTimer)
        .header_read_timeout(ctx.cfg.http_header_timeout)
        .title_case_headers(true)
        .max_buf_size(MAX_HEAD.max(8192))
        .max_header_size(MAX_HEAD)
        .keep_alive(true);
    let conn = builder.serve_connection(io, svc).with_upgrades();
    tokio::pin!(conn);
    let mut shutdown = ctx.shutdown.subscribe();
    if !*shutdown.borrow_and_update() {
        tokio::select! {
            // In order (no random start): the connection is what wakes us.
            biased;
            res = conn.as_mut() => {
                finish(&ctx, fd, res);
                return;
            }
            _ = shutdown.changed() => {}
            _ = kill.notify.notified() => {
                finish(&ctx, fd, Ok(()));
                return;
            }
            _ = &mut idle => {
                // heartbeat_idle_time passed in silence: drop (close) it.
                crate::rlog!(Debug, "heartbeat: closing idle connection {fd}");
                finish(&ctx, fd, Ok(()));
                return;
            }
        }
    }
    // Draining. A request arriving now is answered with `Connection: close`
    // (see `handle`) and hyper closes after it. hyper's graceful_shutdown
    // would close an idle connection at once, racing a client that is
    // sending its next request right now; so wait a little first.
    let grace = DRAIN_IDLE_GRACE.min(ctx.cfg.max_wait_time / 2);
    tokio::select! {
        res = conn.as_mut() => {
            finish(&ctx, fd, res);
            return;
        }
        _ = kill.notify.notified() => {
            finish(&ctx, fd, Ok(()));
            return;
        }
        _ = tokio::time::sleep(grace) => {}
    }
    conn.as_mut().graceful_shutdown();
    tokio::select! {
        res = conn.as_mut() => finish(&ctx, fd, res),
        _ = kill.notify.notified() => finish(&ctx, fd, Ok(())),
    }
}

fn finish(ctx: &WorkerCtx, fd: i64, res: Result<(), hyper::Error>) {
    if let Err(e) = &res {
        // A client that vanished or sent garbage is routine; keep it quiet.
        crate::rlog!(Debug, "connection ended: {e}");
    }
    stats::on_close(res.is_err());
    ctx.conn_closed();
    OPEN.with(|t| t.borrow_mut().remove(&fd));
    let upgraded = ctx.hooks.websocket() && crate::engine::ws::http_closed(ctx, fd);
    if !upgraded {
        crate::engine::session::close(fd);
    }
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

async fn handle(
    req: Request<Incoming>,
    ctx: Rc<WorkerCtx>,
    fd: i64,
    peer: SocketAddr,
    local: Option<SocketAddr>,
    port: u16,
) -> Result<Response<RespBody>, Infallible> {
    stats::on_request_start();
    // The duration histogram (metrics): one clock read each way when on.
    let began = stats::histogram_on().then(Instant::now);
    let Ok(mut resp) = handle_inner(req, &ctx, fd, peer, local, port).await;
    stats::on_request_end();
    if let Some(t) = began {
        stats::observe_duration(t.elapsed().as_micros() as u64);
    }
    if ctx.is_draining() {
        // The last response on this connection: say so, and hyper closes
        // the connection after writing it.
        resp.headers_mut().insert(
            header::CONNECTION,
            header::HeaderValue::from_static("close"),
        );
    }
    ctx.after_request();
    Ok(resp)
}

async fn handle_inner(
    req: Request<Incoming>,
    ctx: &Rc<WorkerCtx>,
    fd: i64,
    peer: SocketAddr,
    local: Option<SocketAddr>,
    port: u16,
) -> Result<Response<RespBody>, Infallible> {
    if ctx.poisoned.get().is_some() {
        return Ok(simple(503, "", true));
    }
    if ctx.hooks.websocket() && crate::engine::ws::is_upgrade(&req) {
        return Ok(Box::pin(crate::engine::ws::upgrade(
            req,
            ctx.clone(),
            peer,
            local,
            fd,
            port,
        ))
        .await);
    }
    let keep_alive = wants_keep_alive(&req);
    let cfg = &ctx.cfg;

    if cfg.enable_static_handler {
        if let Some(root) = &cfg.document_root {
            match static_files::resolve_target(
                root,
                req.uri().path(),
                &cfg.http_index_files,
                cfg.http_autoindex,
            ) {
                Some(static_files::Target::File(file)) => {
                    if let Some(resp) =
                        static_files::serve(&file, req.method(), req.headers(), keep_alive)
                    {
                        return Ok(resp);
                    }
                }
                Some(static_files::Target::Listing { dir, url }) => {
                    if let Some(resp) = static_files::listing(&dir, &url, keep_alive) {
                        return Ok(resp);
                    }
                }
                None => {}
            }
        }
    }

    let max = cfg.package_max_length;
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
    let body = if http_body::Body::is_end_stream(&body) {
        Ok(Bytes::new())
    } else {
        Box::pin(read_body(body, max)).await
    };
    let body = match body {
        Ok(b) => b,
        Err(BodyError::TooLarge) => return Ok(simple(413, "", true)),
        Err(BodyError::Io) => return Ok(simple(400, "", true)),
    };

    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let is_head = parts.method == http::Method::HEAD;
    let coding = parts
        .headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| Coding::from_accept(v.as_bytes()));
    let request = HttpRequest {
        fd,
        protocol: if parts.version == Version::HTTP_10 {
            "HTTP/1.0"
        } else {
            "HTTP/1.1"
        },
        method: parts.method,
        uri: parts.uri,
        headers: parts.headers,
        body,
        peer,
        local,
        server_port: port,
        time: now,
        master_time: now as i64,
    };
    let (responder, head_rx) = Responder::new(RespContext {
        is_head,
        keep_alive,
        coding,
        compression: cfg
            .http_compression
            .then_some((cfg.http_compression_level, cfg.http_compression_min_length)),
    });
    ctx.requests.set(ctx.requests.get() + 1);
    // request_timeout: armed before the handler runs (the watchdog
    // interrupts PHP that is still running past it).
    let deadline = crate::engine::watchdog::Deadline::start(cfg.request_timeout);
    let outcome = ctx.hooks.on_request(request, responder);
    if let Outcome::Fatal(code) = outcome {
        ctx.poison(code);
    }
    if let Some(d) = deadline {
        return Ok(super::deadline::wait_head(head_rx, d, ctx, fd, keep_alive).await);
    }
    match head_rx.await {
        Ok(resp) => Ok(resp),
        // The responder was dropped unanswered: the callback failed or forgot end().
        Err(_) => Ok(simple(500, "", ctx.poisoned.get().is_some() || !keep_alive)),
    }
}

enum BodyError {
    TooLarge,
    Io,
}

async fn read_body(mut body: Incoming, max: usize) -> Result<Bytes, BodyError> {
    let mut buf = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| BodyError::Io)?;
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > max {
                return Err(BodyError::TooLarge);
            }
            buf.extend_from_slice(&data);
        }
    }
    Ok(buf.freeze())
}
