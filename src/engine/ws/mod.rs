//! WebSocket (RFC 6455) on the HTTP port: the handshake answered from
//! `http::conn` with a 101 and hyper's upgrade, then one task per
//! connection that parses frames, answers ping and close, enforces the
//! protocol (unmasked frame 1002, bad UTF-8 1007, too big 1009) and runs
//! `push()`/`disconnect()` commands in order.
//!
//! A `handshake` callback, when set, answers the upgrade request itself;
//! the connection becomes a WebSocket one only on a 101. permessage-deflate
//! (`ws_deflate`) is negotiated per connection with `websocket_compression`.
//! An HTTP connection of a WebSocket server that closes without becoming a
//! WebSocket one fires `disconnect` (`http_closed`).
//!
//! A WebSocket connection gets a session id (`engine::shared::session`) like a raw
//! TCP connection, with `ws_status` 3 once open, so `$server->connections`
//! lists it. It is a `conns` entry: a push is a frame encoded by the
//! pusher (compressed when the connection negotiated it, which its session
//! slot says in every process) and written by the owner, from another
//! worker or a task worker too (an IPC `Send`; a close frame, `Close`).

pub mod close;
pub mod deflate;
pub mod frame;
pub mod handshake;

use std::cell::RefCell;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::{Bytes, BytesMut};
use http::{header, HeaderValue, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::AsyncWriteExt;

use crate::engine::hooks::Outcome;
use crate::engine::http::body::RespBody;
use crate::engine::http::response::{simple, ExactNames};
use crate::engine::http::{HttpRequest, RespContext, Responder};
use crate::engine::net::conns::{self, Cmd};
use crate::engine::net::outflow::Outflow;
use crate::engine::shared::session;
use crate::engine::worker::ctx::WorkerCtx;

pub use frame::*;
pub use handshake::{accept_key, base64_encode};

/// `WEBSOCKET_STATUS_HANDSHAKE`: a custom `handshake` callback is running.
pub const STATUS_HANDSHAKE: i32 = 2;
/// `WEBSOCKET_STATUS_ACTIVE`.
pub const STATUS_ACTIVE: i32 = 3;
/// `WEBSOCKET_STATUS_CLOSING`.
pub const STATUS_CLOSING: i32 = 4;

/// True for a well-formed `Upgrade: websocket` request.
pub fn is_upgrade<B>(req: &Request<B>) -> bool {
    let has = |name: header::HeaderName, token: &str| {
        req.headers().get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|s| s.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    req.method() == http::Method::GET
        && has(header::UPGRADE, "websocket")
        && has(header::CONNECTION, "upgrade")
        && req.headers().contains_key(header::SEC_WEBSOCKET_KEY)
}

/// Queues a frame on WebSocket connection `fd` (here or in its owner
/// worker). False when `fd` is not an open WebSocket connection.
pub fn push(fd: i64, opcode: u8, flags: u8, data: Bytes) -> bool {
    push_bounded(fd, opcode, flags, &data).unwrap_or(false)
}

/// `push`, refused with `Err(outflow)` when the connection's output
/// buffer is full (a push to another worker's connection is bounded by
/// that owner). The frame is encoded here, compressed when the
/// connection negotiated permessage-deflate; the owner only writes it.
pub fn push_bounded(fd: i64, opcode: u8, flags: u8, data: &[u8]) -> Result<bool, Rc<Outflow>> {
    // One look in the registry, or one at the session slot (a task
    // worker's broadcast pushes once per connection).
    match find(fd) {
        Some((Where::Here(c), deflate)) => {
            c.queue_bounded(outgoing(opcode, flags, data, deflate).freeze())
        }
        Some((Where::Owner(worker), deflate)) => Ok(conns::to_owner(
            worker,
            crate::engine::ipc::Kind::Send,
            fd,
            0,
            outgoing(opcode, flags, data, deflate).freeze(),
        )),
        None => Ok(false),
    }
}

/// Where a WebSocket connection is served.
enum Where {
    /// In this worker's registry.
    Here(Rc<conns::Conn>),
    /// Open in another worker (its id).
    Owner(i32),
}

/// WebSocket connection `fd`, ours or open in another worker, and whether
/// it negotiated permessage-deflate; `None` for anything else.
fn find(fd: i64) -> Option<(Where, bool)> {
    match conns::get(fd) {
        Some(c) if c.kind() == conns::Kind::WebSocket => {
            let deflate = c.compress();
            Some((Where::Here(c), deflate))
        }
        Some(_) => None,
        None => session::get(fd)
            .filter(|s| s.ws_status == STATUS_ACTIVE)
            .map(|s| (Where::Owner(s.worker), s.ws_compress)),
    }
}

/// Sends a close frame with `code` and `reason`, then closes `fd`.
pub fn disconnect(fd: i64, code: u16, reason: Bytes) -> bool {
    if find(fd).is_none() {
        return false;
    }
    let frame = encode(OP_CLOSE, FLAG_FIN, &close::encode(code, &reason));
    conns::close_after(fd, false, frame.freeze())
}

/// True when `fd` is a WebSocket connection (in any worker).
pub fn is_websocket(fd: i64) -> bool {
    find(fd).is_some()
}

/// True when `fd` is a WebSocket connection past its handshake.
pub fn is_established(fd: i64) -> bool {
    // Not while a custom `handshake` callback runs (its pushes still queue).
    session::get(fd).is_some_and(|s| s.ws_status == STATUS_ACTIVE)
}

/// Closes WebSocket connection `fd` with a normal close frame
/// (`$server->close($fd)`); false when `fd` is not one.
pub fn close(fd: i64) -> bool {
    disconnect(fd, close::NORMAL, Bytes::new())
}

/// What became of an upgrade request on an HTTP connection, by the
/// connection's socket fd, until that connection's hyper task ends.
enum Fate {
    /// The socket now belongs to a WebSocket task.
    Upgraded,
    /// A `handshake` callback did not answer 101: `disconnect` gets this id.
    Refused(i64),
}

/// This worker's HTTP connections that sent an upgrade request: fd -> fate.
type Fates = HashMap<i64, Fate>;

thread_local! {
    /// Boxed like `T`: the dlopen()ed extension has little static TLS room.
    static FATES: Box<RefCell<Option<Box<Fates>>>> = Box::new(RefCell::new(None));
}

fn fates<R>(f: impl FnOnce(&mut Fates) -> R) -> R {
    FATES.with(|t| f(t.borrow_mut().get_or_insert_with(Default::default)))
}

/// An HTTP connection of a WebSocket server ended (called by `http::conn`).
/// Unless its socket went to a WebSocket task, fire `disconnect`: Swoole
/// fires it for every connection of a WebSocket port that closes without
/// being an established WebSocket connection. True when the socket went to
/// a WebSocket task (which now owns the connection id).
pub fn http_closed(ctx: &WorkerCtx, http_fd: i64) -> bool {
    let fd = match fates(|t| t.remove(&http_fd)) {
        Some(Fate::Upgraded) => return true,
        Some(Fate::Refused(id)) => id,
        None => http_fd,
    };
    if let Outcome::Fatal(code) = ctx.hooks.on_disconnect(fd, ctx.id as i32) {
        ctx.poison(code);
    }
    false
}

/// Takes the socket out of hyper's `Upgraded` (`http::conn::take_upgraded`):
/// the stream and the bytes read past the handshake, or the `Upgraded` back.
pub type TakeSocket =
    fn(
        hyper::upgrade::Upgraded,
    ) -> Result<(crate::engine::tls::NetStream, Bytes), hyper::upgrade::Upgraded>;

/// Answers an `Upgrade: websocket` request on HTTP connection `http_fd`:
/// with our own 101, or with what the `handshake` callback sends. On a 101
/// the connection's task starts once hyper hands over the socket.
pub async fn upgrade<B>(
    mut req: Request<B>,
    ctx: Rc<WorkerCtx>,
    peer: SocketAddr,
    local: Option<SocketAddr>,
    http_fd: i64,
    server_port: u16,
    take: TakeSocket,
) -> Response<RespBody> {
    let port = conns::get(http_fd).map_or(0, |c| c.port());
    let custom = ctx.cfg.ws.custom_on_port(port);
    let version_ok = req
        .headers()
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_some_and(|v| v.as_bytes() == b"13");
    let key = req
        .headers()
        .get(header::SEC_WEBSOCKET_KEY)
        .map(|v| v.as_bytes().to_vec())
        .unwrap_or_default();
    // A `handshake` callback validates the request itself (as in Swoole).
    if !custom && (!version_ok || key.is_empty()) {
        let mut r = Response::new(RespBody::empty());
        *r.status_mut() = StatusCode::BAD_REQUEST;
        return r;
    }
    let offered: Vec<String> = req
        .headers()
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .collect();
    // `websocket_compression`: the permessage-deflate answer, if any offer fits.
    let deflate = if ctx.cfg.ws.compression {
        crate::engine::ws::deflate::negotiate(
            req.headers()
                .get_all(header::SEC_WEBSOCKET_EXTENSIONS)
                .iter()
                .map(HeaderValue::as_bytes),
        )
    } else {
        None
    };
    let on = hyper::upgrade::on(&mut req);
    let (parts, _) = req.into_parts();
    // The connection keeps its id (Swoole's `$request->fd` is the
    // WebSocket fd); its session slot now says WebSocket.
    let fd = http_fd;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let request = HttpRequest {
        fd,
        protocol: "HTTP/1.1",
        stream_id: 0,
        method: parts.method,
        uri: parts.uri,
        headers: parts.headers.into(),
        body: Bytes::new(),
        peer,
        local,
        server_port,
        time: now,
        master_time: now as i64,
    };
    // In the registry and the drain count from now, before hyper's side of
    // the connection ends (a draining worker never sees zero connections
    // in between): a client that has the 101 may already be counted on by
    // a broadcast, whose pushes queue until the task runs (and so do
    // pushes made by a `handshake` callback after its end()). Until the
    // upgrade is done the HTTP connection keeps the id: dropping `guard`
    // puts its entry back.
    let (guard, rx) = conns::register(fd, conns::Kind::WebSocket, port, &ctx);
    let (mut r, open_request) = if custom {
        session::set_ws_status(fd, STATUS_HANDSHAKE);
        let (responder, head_rx) = Responder::new(RespContext::plain(true));
        if let Outcome::Fatal(code) = ctx.hooks.on_ws_handshake(request, responder) {
            ctx.poison(code);
        }
        let r = head_rx.await.unwrap_or_else(|_| simple(500, "", true));
        if r.status() != StatusCode::SWITCHING_PROTOCOLS {
            // Swoole closes a connection whose handshake failed. The HTTP
            // connection still owns the id and frees it when it ends.
            drop(guard);
            session::set_ws_status(fd, 0);
            fates(|t| t.insert(http_fd, Fate::Refused(fd)));
            let mut r = r;
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
        // `open` is not fired after a custom handshake (Swoole).
        (r, None)
    } else if ctx.cfg.ws.before_handshake_response {
        (
            before_handshake_response(&key, &offered, &ctx, &request).await,
            Some(request),
        )
    } else {
        (default_response(&key, &offered, &ctx), Some(request))
    };
    // Compression is on only when we answer with the extension; a custom
    // handshake gets our answer added unless it wrote one itself.
    let mut deflate_on = false;
    if let Some(ext) = deflate.and_then(|d| HeaderValue::from_str(&d).ok()) {
        let h = r.headers_mut();
        if !h.contains_key(header::SEC_WEBSOCKET_EXTENSIONS) {
            h.insert(header::SEC_WEBSOCKET_EXTENSIONS, ext);
        }
        deflate_on = h
            .get_all(header::SEC_WEBSOCKET_EXTENSIONS)
            .iter()
            .any(|v| v.as_bytes().starts_with(b"permessage-deflate"));
    }
    // Swoole spells these `Sec-WebSocket-*` (hyper would write
    // `Sec-Websocket-*`): clients that match the name with its case, as
    // Swoole's own test client does, find them.
    // A custom `handshake` callback's names go as it wrote them.
    if !custom {
        let mut exact = r
            .extensions_mut()
            .remove::<ExactNames>()
            .unwrap_or_default();
        exact
            .0
            .extend(WS_SPELLINGS.iter().map(|n| Box::<[u8]>::from(*n)));
        r.extensions_mut().insert(exact);
    }
    fates(|t| t.insert(http_fd, Fate::Upgraded));
    guard.own_session();
    guard.conn().set_compress(deflate_on);
    session::set_ws_status(fd, STATUS_ACTIVE);
    session::set_ws_compress(fd, deflate_on);
    let task_ctx = ctx.clone();
    tokio::task::spawn_local(async move {
        match on.await {
            Ok(up) => {
                let mut setup = Setup {
                    open: open_request,
                    deflate: deflate_on,
                    ahead: Bytes::new(),
                    counted: false,
                    raw: -1,
                };
                // The socket itself, not through hyper's `Upgraded` (see
                // docs/internals.md): hyper's wrapper cost ~1,400
                // instructions per message in its reads alone.
                match take(up) {
                    Ok((io, ahead)) => {
                        setup.ahead = ahead;
                        if let crate::engine::tls::NetStream::Plain(s) = &io {
                            setup.raw = std::os::fd::AsRawFd::as_raw_fd(s);
                        }
                        serve(io, guard, rx, setup, task_ctx).await
                    }
                    Err(up) => {
                        setup.counted = true;
                        serve(TokioIo::new(up), guard, rx, setup, task_ctx).await
                    }
                }
            }
            // The guard's drop frees the id.
            Err(e) => crate::rlog!(Debug, "websocket upgrade of {fd} failed: {e}"),
        }
    });
    r
}

/// The 101's header names as Swoole spells them.
const WS_SPELLINGS: [&[u8]; 4] = [
    b"Sec-WebSocket-Accept",
    b"Sec-WebSocket-Version",
    b"Sec-WebSocket-Protocol",
    b"Sec-WebSocket-Extensions",
];

/// rswoole's own 101 for `key`.
fn default_response(key: &[u8], offered: &[String], ctx: &WorkerCtx) -> Response<RespBody> {
    let mut r = Response::new(RespBody::empty());
    *r.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = r.headers_mut();
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(v) = HeaderValue::from_str(&accept_key(key)) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    h.insert(
        header::SEC_WEBSOCKET_VERSION,
        HeaderValue::from_static("13"),
    );
    // `websocket_subprotocol`, when the client offered it (as Swoole does).
    if let Some(v) = ctx
        .cfg
        .ws
        .subprotocol
        .as_ref()
        .filter(|p| offered.iter().any(|o| o == *p))
        .and_then(|p| HeaderValue::from_str(p).ok())
    {
        h.insert(header::SEC_WEBSOCKET_PROTOCOL, v);
    }
    h.insert(
        header::SERVER,
        HeaderValue::from_static("swoole-http-server"),
    );
    r
}

/// Our 101 after `beforeHandshakeResponse($server, $request, $response)`
/// could add headers and cookies to it (Swoole 6.2): the response starts as
/// our 101 and is ended here once the callback returns; it stays a 101.
async fn before_handshake_response(
    key: &[u8],
    offered: &[String],
    ctx: &Rc<WorkerCtx>,
    request: &HttpRequest,
) -> Response<RespBody> {
    let ours = default_response(key, offered, ctx);
    let (responder, head_rx) = Responder::new(RespContext::plain(true));
    let _ = responder.status(101, None);
    for (name, value) in ours.headers() {
        let _ = responder.header(name.as_str(), value.as_bytes(), false);
    }
    if let Outcome::Fatal(code) = ctx
        .hooks
        .on_ws_before_handshake_response(request.clone(), responder.clone())
    {
        ctx.poison(code);
    }
    // Already ended by the callback, or ended now: either way a head comes.
    let _ = responder.end(Bytes::new());
    drop(responder);
    match head_rx.await {
        Ok(mut r) => {
            *r.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
            r
        }
        Err(_) => ours,
    }
}

/// How a connection's task starts.
struct Setup {
    /// The handshake request for `open` (`None` after a custom handshake).
    open: Option<HttpRequest>,
    /// permessage-deflate was negotiated.
    deflate: bool,
    /// Bytes read past the handshake: the first the task parses.
    ahead: Bytes,
    /// The stream counts its bytes for `stats()` itself (hyper's
    /// `Upgraded` over our HTTP socket); otherwise the task counts them.
    counted: bool,
    /// The plain TCP socket underneath (-1: TLS, or not known): a push
    /// writes straight to it when nothing is queued (`Conn::set_raw_fd`),
    /// without waking the task, as Swoole writes a push at once.
    raw: i32,
}

/// What the connection's task got from one wake-up.
enum Event {
    /// Bytes read into the buffer (0: the peer is gone), or a read error.
    Read(std::io::Result<usize>),
    /// The bytes read past the handshake are in the buffer (counted for
    /// `stats()` when they were read).
    Ahead,
    /// The next command (`None`: the registry dropped the connection).
    Cmd(Option<Cmd>),
    /// The worker drains.
    Drain,
}

/// Reads what `io` has into `buf`'s spare room (as tokio's `read_buf`,
/// without its future): `Ready(Ok(0))` at the end of the stream.
fn poll_read_into<S: tokio::io::AsyncRead + Unpin>(
    io: &mut S,
    cx: &mut std::task::Context<'_>,
    buf: &mut BytesMut,
) -> std::task::Poll<std::io::Result<usize>> {
    if buf.len() == buf.capacity() {
        buf.reserve(64);
    }
    let mut rb = tokio::io::ReadBuf::uninit(buf.spare_capacity_mut());
    match std::pin::Pin::new(io).poll_read(cx, &mut rb) {
        std::task::Poll::Ready(Ok(())) => {
            let n = rb.filled().len();
            // SAFETY: `poll_read` initialised the first `n` bytes of the
            // spare room it was given (`ReadBuf::filled`).
            unsafe { buf.set_len(buf.len() + n) };
            std::task::Poll::Ready(Ok(n))
        }
        std::task::Poll::Ready(Err(e)) => std::task::Poll::Ready(Err(e)),
        std::task::Poll::Pending => std::task::Poll::Pending,
    }
}

/// One WebSocket connection's task: frames in, hooks called, commands
/// (caller-encoded frames, raw bytes, a close) written in order. `guard`
/// (`conns::register`) ends the connection's life when it drops, however
/// the task ends.
async fn serve<S>(
    io: S,
    guard: conns::Guard,
    mut rx: conns::Receiver,
    setup: Setup,
    ctx: Rc<WorkerCtx>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let reactor = ctx.id as i32;
    let conn = guard.conn().clone();
    let fd = conn.fd();
    if let Some(request) = setup.open {
        if let Outcome::Fatal(code) = ctx.hooks.on_ws_open(request) {
            ctx.poison(code);
        }
    }
    let deflate = setup.deflate;
    let counted = setup.counted;
    let mut io = io;
    // After a write: the output buffer's count, and the `stats()` bytes
    // `Counted` counted for hyper's side. (Writes leave the connection's
    // activity clock alone: the heartbeat looks at what arrives, as
    // Swoole's `last_recv_time`.)
    let on_send = |n: usize| {
        if !counted {
            crate::engine::shared::stats::on_send(n);
        }
    };
    let sent = |n: usize| {
        conn.flow().sent(n);
        on_send(n);
    };
    let max = ctx.cfg.package_max_length;
    let control = ctx.cfg.ws.control;
    let mut shutdown = ctx.shutdown.subscribe();
    // Says cheaply whether the shutdown value changed since last looked:
    // the drain future is polled only then (and once to register).
    let mut probe = shutdown.clone();
    let mut buf = BytesMut::with_capacity(16 * 1024);
    if !setup.ahead.is_empty() {
        buf.extend_from_slice(&setup.ahead);
    }
    let mut have = !buf.is_empty();
    // A fragmented message being put together: (opcode, compressed, data).
    let mut partial: Option<(u8, bool, BytesMut)> = None;
    // The close frame to send before closing (None: the socket is gone).
    let mut closing: Option<(u16, Bytes)> = None;
    // What a `close()` asked to write last (its caller-encoded close frame;
    // empty from the heartbeat, which closes without one).
    let mut last: Option<Bytes> = None;
    let mut draining = *shutdown.borrow_and_update();
    let _ = probe.borrow_and_update();
    // One future for the whole loop, polled only when `probe` saw a change
    // (and once, to put the task's waker in the channel's list): polling a
    // `changed()` cost ~240 instructions on every wake-up of the task.
    let drain = async move {
        while shutdown.changed().await.is_ok() {
            if *shutdown.borrow() {
                return;
            }
        }
    };
    tokio::pin!(drain);
    // Pushes may write to the socket directly from here on (the task's own
    // writes, a pong or the last close frame, take it back first: a push
    // must not land inside them).
    let raw = setup.raw;
    conn.set_raw_fd(raw);
    let mut drain_armed = false;
    // Reads and commands take turns being looked at first, so neither a
    // flood of frames nor one of pushes starves the other.
    let mut read_first = false;
    'outer: while !draining {
        let event = if have {
            have = false;
            Event::Ahead
        } else {
            read_first = !read_first;
            std::future::poll_fn(|cx| {
                use std::task::Poll;
                if read_first {
                    if let Poll::Ready(r) = poll_read_into(&mut io, cx, &mut buf) {
                        return Poll::Ready(Event::Read(r));
                    }
                }
                if let Poll::Ready(cmd) = rx.poll_recv(cx) {
                    return Poll::Ready(Event::Cmd(cmd));
                }
                if !drain_armed || probe.has_changed().unwrap_or(true) {
                    drain_armed = true;
                    let _ = probe.borrow_and_update();
                    if std::future::Future::poll(drain.as_mut(), cx).is_ready() {
                        return Poll::Ready(Event::Drain);
                    }
                }
                if !read_first {
                    if let Poll::Ready(r) = poll_read_into(&mut io, cx, &mut buf) {
                        return Poll::Ready(Event::Read(r));
                    }
                }
                Poll::Pending
            })
            .await
        };
        match event {
            Event::Read(Ok(0) | Err(_)) => break,
            Event::Read(Ok(_)) | Event::Ahead => {
                if let (Event::Read(Ok(n)), false) = (&event, counted) {
                    crate::engine::shared::stats::on_recv(*n);
                }
                conn.touch();
                loop {
                    let frame = match parse_ext(&mut buf, max, deflate) {
                        Ok(Some(f)) => f,
                        Ok(None) => break,
                        Err(code) => {
                            closing = Some((code, Bytes::new()));
                            break 'outer;
                        }
                    };
                    match frame.opcode {
                        OP_PING | OP_PONG | OP_CLOSE
                            if (frame.opcode == OP_PING && control.ping)
                                || (frame.opcode == OP_PONG && control.pong)
                                || (frame.opcode == OP_CLOSE && control.close) =>
                        {
                            let out = ctx.hooks.on_ws_message(
                                fd,
                                frame.payload.clone(),
                                frame.opcode,
                                FLAG_FIN | FLAG_MASK,
                            );
                            if let Outcome::Fatal(code) = out {
                                ctx.poison(code);
                            }
                            if frame.opcode == OP_CLOSE {
                                closing = Some(close::answer(&frame.payload));
                                break 'outer;
                            }
                        }
                        OP_PING => {
                            let pong = encode(OP_PONG, FLAG_FIN, &frame.payload);
                            conn.set_raw_fd(-1);
                            if io.write_all(&pong).await.is_err() {
                                break 'outer;
                            }
                            conn.set_raw_fd(raw);
                            on_send(pong.len());
                        }
                        OP_PONG => {}
                        OP_CLOSE => {
                            closing = Some(close::answer(&frame.payload));
                            break 'outer;
                        }
                        op => {
                            let (opcode, compressed, data) = match (op, partial.take()) {
                                (OP_CONTINUATION, Some((o, c, mut acc))) => {
                                    if acc.len() + frame.payload.len() > max {
                                        closing = Some((close::TOO_BIG, Bytes::new()));
                                        break 'outer;
                                    }
                                    acc.extend_from_slice(&frame.payload);
                                    if !frame.fin {
                                        partial = Some((o, c, acc));
                                        continue;
                                    }
                                    (o, c, acc.freeze())
                                }
                                (OP_CONTINUATION, None) | (_, Some(_)) => {
                                    closing = Some((close::PROTOCOL_ERROR, Bytes::new()));
                                    break 'outer;
                                }
                                (o, None) if !frame.fin => {
                                    let first = BytesMut::from(&frame.payload[..]);
                                    partial = Some((o, frame.rsv & 1 != 0, first));
                                    continue;
                                }
                                // A whole message in one frame: its
                                // payload as cut from the read buffer.
                                (o, None) => (o, frame.rsv & 1 != 0, frame.payload),
                            };
                            let (data, flags) = if compressed {
                                match crate::engine::ws::deflate::decompress(&data, max) {
                                    Ok(v) => (
                                        Bytes::from(v),
                                        FLAG_FIN | FLAG_MASK | FLAG_RSV1 | FLAG_COMPRESS,
                                    ),
                                    Err(e) => {
                                        closing = Some((e.close_code(), Bytes::new()));
                                        break 'outer;
                                    }
                                }
                            } else {
                                (data, FLAG_FIN | FLAG_MASK)
                            };
                            if opcode == OP_TEXT && std::str::from_utf8(&data).is_err() {
                                closing = Some((close::INVALID_DATA, Bytes::new()));
                                break 'outer;
                            }
                            let out = ctx.hooks.on_ws_message(fd, data, opcode, flags);
                            if let Outcome::Fatal(code) = out {
                                ctx.poison(code);
                            }
                        }
                    }
                }
            }
            // A frame encoded by the pusher, or `send()`'s raw bytes.
            Event::Cmd(Some(Cmd::Data(data))) => {
                if io.write_all(&data).await.is_err() {
                    break;
                }
                sent(data.len());
            }
            Event::Cmd(Some(Cmd::Close { last: bytes, .. })) => {
                last = Some(bytes);
                break;
            }
            Event::Cmd(Some(Cmd::Pause | Cmd::Resume)) => {}
            Event::Cmd(None) => break,
            Event::Drain => {
                draining = true;
                closing = Some((close::GOING_AWAY, Bytes::new()));
            }
        }
    }
    conn.set_raw_fd(-1);
    session::set_ws_status(fd, STATUS_CLOSING);
    guard.unregister();
    rx.close();
    // Writers waiting for room give up; what was queued is freed with `rx`.
    conn.flow().close();
    if let Some(bytes) = last {
        if !bytes.is_empty() && io.write_all(&bytes).await.is_ok() {
            on_send(bytes.len());
        }
    } else if let Some((code, reason)) = closing {
        let frame = encode(OP_CLOSE, FLAG_FIN, &close::encode(code, &reason));
        if io.write_all(&frame).await.is_ok() {
            on_send(frame.len());
        }
    }
    let _ = io.shutdown().await;
    drop(io);
    if let Outcome::Fatal(code) = ctx.hooks.on_close(fd, reactor, 0) {
        ctx.poison(code);
    }
    // Session slot freed, drain count down.
    drop(guard);
}

/// The connection task (`serve`) over an in-memory pipe, driven through
/// the registry as `push()`, `disconnect()` and the heartbeat drive it.
#[cfg(test)]
mod conn_tests {
    use std::rc::Rc;
    use std::time::Duration;

    use bytes::{Bytes, BytesMut};
    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
    use tokio::task::JoinHandle;

    use super::*;
    use crate::engine::net::tcp::tests::{ctx, run, until_seen, Rec};
    use crate::engine::worker::ctx::WorkerCtx;

    fn start(ctx: &Rc<WorkerCtx>) -> (DuplexStream, i64, JoinHandle<()>) {
        let (server, client) = tokio::io::duplex(64 * 1024);
        let peer = "127.0.0.1:4000".parse().expect("addr");
        let fd = session::open(ctx.id as i32, 0, 80, peer);
        let (guard, rx) = conns::register(fd, conns::Kind::WebSocket, 0, ctx);
        session::set_ws_status(fd, STATUS_ACTIVE);
        let setup = Setup {
            open: None,
            deflate: false,
            ahead: Bytes::new(),
            counted: false,
            raw: -1,
        };
        let task = tokio::task::spawn_local(serve(server, guard, rx, setup, ctx.clone()));
        (client, fd, task)
    }

    /// The next frame the server sent.
    async fn next_frame(c: &mut DuplexStream, buf: &mut BytesMut) -> Frame {
        loop {
            if let Some(f) = parse_server_frame(buf, 1 << 20).expect("frame") {
                return f;
            }
            assert!(
                c.read_buf(buf).await.expect("read") > 0,
                "eof before a frame"
            );
        }
    }

    #[test]
    fn push_ping_message_and_disconnect() {
        let hooks = Rc::new(Rec::default());
        let ctx = ctx(&hooks);
        run(false, async {
            let (mut c, fd, task) = start(&ctx);
            let mut buf = BytesMut::new();
            assert!(is_websocket(fd));
            assert!(push(fd, OP_TEXT, FLAG_FIN, Bytes::from_static(b"hi")));
            let f = next_frame(&mut c, &mut buf).await;
            assert_eq!((f.opcode, &f.payload[..]), (OP_TEXT, &b"hi"[..]));

            let mask = Some(*b"abcd");
            let ping = encode_masked(OP_PING, FLAG_FIN, b"p", mask);
            c.write_all(&ping).await.expect("ping");
            let f = next_frame(&mut c, &mut buf).await;
            assert_eq!((f.opcode, &f.payload[..]), (OP_PONG, &b"p"[..]));

            let msg = encode_masked(OP_TEXT, FLAG_FIN, b"yo", mask);
            c.write_all(&msg).await.expect("message");
            until_seen(&hooks, &format!("message {fd} {OP_TEXT} yo")).await;

            // A raw send goes out as it is, between frames.
            assert!(conns::send(fd, Bytes::from_static(b"\x81\x01!")));
            let f = next_frame(&mut c, &mut buf).await;
            assert_eq!(&f.payload[..], b"!");

            // disconnect(): the caller-encoded close frame, then the end.
            assert!(disconnect(fd, 4000, Bytes::from_static(b"bye")));
            let f = next_frame(&mut c, &mut buf).await;
            assert_eq!(f.opcode, OP_CLOSE);
            assert_eq!(&f.payload[..], b"\x0f\xa0bye");
            let mut rest = Vec::new();
            c.read_to_end(&mut rest).await.expect("eof");
            task.await.expect("task");
            assert!(hooks.saw(&format!("close {fd}")));
            assert!(!conns::exists(fd));
            assert!(!push(fd, OP_TEXT, FLAG_FIN, Bytes::from_static(b"late")));
            assert_eq!(ctx.conns.get(), 0);
        });
    }

    #[test]
    fn heartbeat_closes_an_idle_connection_without_a_close_frame() {
        let hooks = Rc::new(Rec::default());
        let ctx = ctx(&hooks);
        run(true, async {
            let (mut c, fd, task) = start(&ctx);
            let sweeper = tokio::task::spawn_local(conns::sweeper(
                Duration::from_secs(2),
                Duration::from_secs(5),
                Vec::new(),
            ));
            let start = tokio::time::Instant::now();
            let mut rest = Vec::new();
            c.read_to_end(&mut rest).await.expect("eof");
            assert!(rest.is_empty(), "no close frame: {rest:?}");
            let waited = start.elapsed();
            assert!(
                waited >= Duration::from_secs(5) && waited < Duration::from_secs(8),
                "{waited:?}"
            );
            task.await.expect("task");
            assert!(!conns::exists(fd));
            sweeper.abort();
        });
    }

    #[test]
    fn close_on_a_peer_close_frame_answers_it() {
        let hooks = Rc::new(Rec::default());
        let ctx = ctx(&hooks);
        run(false, async {
            let (mut c, fd, task) = start(&ctx);
            let mut buf = BytesMut::new();
            let bye = encode_masked(
                OP_CLOSE,
                FLAG_FIN,
                &close::encode(close::NORMAL, b""),
                Some(*b"wxyz"),
            );
            c.write_all(&bye).await.expect("close");
            let f = next_frame(&mut c, &mut buf).await;
            assert_eq!(f.opcode, OP_CLOSE);
            task.await.expect("task");
            assert!(hooks.saw(&format!("close {fd}")));
            assert!(session::get(fd).is_none());
        });
    }
}
