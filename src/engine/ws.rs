//! WebSocket (RFC 6455) on the HTTP port: the handshake answered from
//! `http::conn` with a 101 and hyper's upgrade, then one task per
//! connection that parses frames, answers ping and close, enforces the
//! protocol (unmasked frame 1002, bad UTF-8 1007, too big 1009) and runs
//! `push()`/`disconnect()` commands in order.
//!
//! A WebSocket connection gets a session id (`engine::session`) like a raw
//! TCP connection, with `ws_status` 3 once open, so `$server->connections`
//! lists it and a push from another worker or a task worker travels to the
//! owner over IPC (`ipc::Kind::Push`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use http::{header, HeaderValue, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use super::hooks::Outcome;
use super::http::body::RespBody;
use super::http::HttpRequest;
use super::ipc;
use super::session;
use super::worker::WorkerCtx;

pub const OP_CONTINUATION: u8 = 0;
pub const OP_TEXT: u8 = 1;
pub const OP_BINARY: u8 = 2;
pub const OP_CLOSE: u8 = 8;
pub const OP_PING: u8 = 9;
pub const OP_PONG: u8 = 10;

/// `SWOOLE_WEBSOCKET_FLAG_FIN`.
pub const FLAG_FIN: u8 = 1;
/// `SWOOLE_WEBSOCKET_FLAG_MASK`: Swoole reports it on every client message.
pub const FLAG_MASK: u8 = 32;
/// `WEBSOCKET_STATUS_ACTIVE`.
pub const STATUS_ACTIVE: i32 = 3;
/// `WEBSOCKET_STATUS_CLOSING`.
pub const STATUS_CLOSING: i32 = 4;

const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// `open_websocket_ping_frame`/`_pong_frame`/`_close_frame`: hand these
/// control frames to `on_ws_message` (a ping is then not answered by us).
#[derive(Debug, Clone, Copy, Default)]
pub struct ControlFrames {
    pub ping: bool,
    pub pong: bool,
    pub close: bool,
}

enum Cmd {
    Frame { opcode: u8, flags: u8, data: Bytes },
    Close { code: u16, reason: Bytes },
}

/// This worker's WebSocket connections: fd -> command queue.
type Conns = HashMap<i64, mpsc::UnboundedSender<Cmd>>;

thread_local! {
    /// Boxed: the dlopen()ed extension has little static TLS room.
    static T: RefCell<Option<Box<Conns>>> = const { RefCell::new(None) };
}

fn with<R>(f: impl FnOnce(&mut Conns) -> R) -> R {
    T.with(|t| f(t.borrow_mut().get_or_insert_with(Default::default)))
}

fn local(fd: i64) -> Option<mpsc::UnboundedSender<Cmd>> {
    with(|t| t.get(&fd).cloned())
}

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

/// `Sec-WebSocket-Accept` for a client's key.
pub fn accept_key(key: &[u8]) -> String {
    let mut input = key.to_vec();
    input.extend_from_slice(GUID.as_bytes());
    base64(&sha1(&input))
}

fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let mut msg = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_be_bytes());
    for chunk in msg.chunks(64) {
        let mut w = [0u32; 80];
        for (i, word) in chunk.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A827999),
                20..=39 => (b ^ c ^ d, 0x6ED9EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
                _ => (b ^ c ^ d, 0xCA62C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, x) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16
            | (c.get(1).copied().unwrap_or(0) as u32) << 8
            | c.get(2).copied().unwrap_or(0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// One frame off the wire.
#[derive(Debug, PartialEq, Eq)]
pub struct Frame {
    pub fin: bool,
    /// RSV1..3 as bits 0..2.
    pub rsv: u8,
    pub opcode: u8,
    pub payload: Bytes,
}

/// Cuts one client frame off `buf`: `Ok(None)` when incomplete, `Err(code)`
/// with the close code when the peer broke the protocol.
pub fn parse(buf: &mut BytesMut, max: usize) -> Result<Option<Frame>, u16> {
    if buf.len() < 2 {
        return Ok(None);
    }
    let b0 = buf[0];
    let b1 = buf[1];
    let fin = b0 & 0x80 != 0;
    let rsv = (b0 >> 4) & 7;
    let opcode = b0 & 0x0f;
    let masked = b1 & 0x80 != 0;
    if !masked || rsv != 0 {
        return Err(1002);
    }
    if !matches!(opcode, 0 | 1 | 2 | 8 | 9 | 10) {
        return Err(1002);
    }
    let (len, mut off) = match b1 & 0x7f {
        126 => {
            if buf.len() < 4 {
                return Ok(None);
            }
            (u16::from_be_bytes([buf[2], buf[3]]) as u64, 4)
        }
        127 => {
            if buf.len() < 10 {
                return Ok(None);
            }
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[2..10]);
            (u64::from_be_bytes(b), 10)
        }
        n => (n as u64, 2),
    };
    if opcode >= 8 && (len > 125 || !fin) {
        return Err(1002);
    }
    if len > max as u64 {
        return Err(1009);
    }
    let len = len as usize;
    if buf.len() < off + 4 + len {
        buf.reserve(off + 4 + len - buf.len());
        return Ok(None);
    }
    let mask = [buf[off], buf[off + 1], buf[off + 2], buf[off + 3]];
    off += 4;
    buf.advance(off);
    let mut payload = buf.split_to(len);
    for (i, b) in payload.iter_mut().enumerate() {
        *b ^= mask[i & 3];
    }
    Ok(Some(Frame {
        fin,
        rsv,
        opcode,
        payload: payload.freeze(),
    }))
}

/// A server frame (never masked). `flags` are `SWOOLE_WEBSOCKET_FLAG_*`.
pub fn encode(opcode: u8, flags: u8, payload: &[u8]) -> BytesMut {
    let mut out = BytesMut::with_capacity(payload.len() + 10);
    let mut b0 = opcode & 0x0f;
    if flags & FLAG_FIN != 0 {
        b0 |= 0x80;
    }
    // RSV1..3 = FLAG_RSV1 (4), FLAG_RSV2 (8), FLAG_RSV3 (16).
    b0 |= ((flags >> 2) & 7) << 4;
    out.put_u8(b0);
    let n = payload.len();
    if n < 126 {
        out.put_u8(n as u8);
    } else if n <= 0xffff {
        out.put_u8(126);
        out.put_u16(n as u16);
    } else {
        out.put_u8(127);
        out.put_u64(n as u64);
    }
    out.extend_from_slice(payload);
    out
}

/// The code and reason of a peer's close frame (echoed back).
fn peer_close(payload: &Bytes) -> (u16, Bytes) {
    if payload.len() >= 2 {
        (
            u16::from_be_bytes([payload[0], payload[1]]),
            payload.slice(2..),
        )
    } else {
        (1000, Bytes::new())
    }
}

fn close_payload(code: u16, reason: &[u8]) -> BytesMut {
    let mut p = BytesMut::with_capacity(2 + reason.len());
    p.put_u16(code);
    p.extend_from_slice(&reason[..reason.len().min(123)]);
    p
}

/// Queues a frame on WebSocket connection `fd` (here or in its owner
/// worker). False when `fd` is not an open WebSocket connection.
pub fn push(fd: i64, opcode: u8, flags: u8, data: Bytes) -> bool {
    if let Some(tx) = local(fd) {
        return tx
            .send(Cmd::Frame {
                opcode,
                flags,
                data,
            })
            .is_ok();
    }
    route(fd, opcode, flags, data)
}

/// Sends a close frame with `code` and `reason`, then closes `fd`.
pub fn disconnect(fd: i64, code: u16, reason: Bytes) -> bool {
    if let Some(tx) = local(fd) {
        return tx.send(Cmd::Close { code, reason }).is_ok();
    }
    route(
        fd,
        OP_CLOSE,
        FLAG_FIN,
        close_payload(code, &reason).freeze(),
    )
}

fn route(fd: i64, opcode: u8, flags: u8, data: Bytes) -> bool {
    let Some(s) = session::get(fd) else {
        return false;
    };
    if s.ws_status != STATUS_ACTIVE
        || s.worker == super::worker::current_worker_id()
        || s.worker < 0
    {
        return false;
    }
    let m = ipc::Msg {
        kind: ipc::Kind::Push,
        flags: 0,
        src: 0,
        id: fd,
        arg: opcode as i64 | (flags as i64) << 8,
        data,
    };
    match ipc::send(s.worker as usize, m) {
        Ok(()) => true,
        Err(e) => {
            crate::rlog!(
                Warning,
                "push to connection {fd} via worker#{}: {e}",
                s.worker
            );
            false
        }
    }
}

/// A `Push` message that arrived over IPC.
pub fn push_from_ipc(fd: i64, arg: i64, data: Bytes) -> bool {
    let opcode = (arg & 0xff) as u8;
    let flags = ((arg >> 8) & 0xff) as u8;
    if opcode == OP_CLOSE {
        let code = if data.len() >= 2 {
            u16::from_be_bytes([data[0], data[1]])
        } else {
            1000
        };
        let reason = if data.len() > 2 {
            data.slice(2..)
        } else {
            Bytes::new()
        };
        return disconnect(fd, code, reason);
    }
    push(fd, opcode, flags, data)
}

/// True when `fd` is a WebSocket connection past its handshake.
pub fn is_established(fd: i64) -> bool {
    if local(fd).is_some() {
        return true;
    }
    session::get(fd).is_some_and(|s| s.ws_status == STATUS_ACTIVE)
}

/// Closes a local WebSocket connection (`$server->close($fd)`).
pub fn close(fd: i64) -> bool {
    match local(fd) {
        Some(tx) => tx
            .send(Cmd::Close {
                code: 1000,
                reason: Bytes::new(),
            })
            .is_ok(),
        None => false,
    }
}

/// Answers the handshake with a 101 and starts the connection's task once
/// hyper hands over the socket.
pub fn upgrade<B>(mut req: Request<B>, ctx: Rc<WorkerCtx>, peer: SocketAddr) -> Response<RespBody> {
    let version_ok = req
        .headers()
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_some_and(|v| v.as_bytes() == b"13");
    let key = req
        .headers()
        .get(header::SEC_WEBSOCKET_KEY)
        .map(|v| v.as_bytes().to_vec())
        .unwrap_or_default();
    if !version_ok || key.is_empty() {
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
    let on = hyper::upgrade::on(&mut req);
    let (parts, _) = req.into_parts();
    let fd = session::open(ctx.id as i32, 0, ctx.server_port, peer);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let request = HttpRequest {
        fd,
        protocol: "HTTP/1.1",
        method: parts.method,
        uri: parts.uri,
        headers: parts.headers,
        body: Bytes::new(),
        peer,
        server_port: ctx.server_port,
        time: now,
        master_time: now as i64,
    };
    // Counted from now, before hyper's side of the connection ends, so a
    // draining worker never sees zero connections in between.
    ctx.conn_opened();
    // Established from now: a client that has the 101 may already be
    // counted on by a broadcast, whose pushes queue until the task runs.
    let (tx, rx) = mpsc::unbounded_channel();
    with(|t| t.insert(fd, tx));
    session::set_ws_status(fd, STATUS_ACTIVE);
    let task_ctx = ctx.clone();
    tokio::task::spawn_local(async move {
        match on.await {
            Ok(up) => serve(TokioIo::new(up), fd, rx, request, task_ctx).await,
            Err(e) => {
                crate::rlog!(Debug, "websocket upgrade of {fd} failed: {e}");
                with(|t| t.remove(&fd));
                session::close(fd);
                task_ctx.conn_closed();
            }
        }
    });
    let mut r = Response::new(RespBody::empty());
    *r.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = r.headers_mut();
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(v) = HeaderValue::from_str(&accept_key(&key)) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    h.insert(
        header::SEC_WEBSOCKET_VERSION,
        HeaderValue::from_static("13"),
    );
    // `websocket_subprotocol`, when the client offered it (as Swoole does).
    if let Some(v) = ctx
        .hooks
        .ws_subprotocol()
        .filter(|p| offered.iter().any(|o| o == p))
        .and_then(|p| HeaderValue::from_str(&p).ok())
    {
        h.insert(header::SEC_WEBSOCKET_PROTOCOL, v);
    }
    h.insert(
        header::SERVER,
        HeaderValue::from_static("swoole-http-server"),
    );
    r
}

async fn serve<S>(
    io: S,
    fd: i64,
    mut rx: mpsc::UnboundedReceiver<Cmd>,
    request: HttpRequest,
    ctx: Rc<WorkerCtx>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let reactor = ctx.id as i32;
    if let Outcome::Fatal(code) = ctx.hooks.on_ws_open(request) {
        ctx.poison(code);
    }
    let (mut rd, mut wr) = tokio::io::split(io);
    let max = ctx.cfg.package_max_length;
    let control = ctx.hooks.ws_control_frames();
    let mut shutdown = ctx.shutdown.subscribe();
    let mut buf = BytesMut::with_capacity(16 * 1024);
    // A fragmented message being put together: (opcode, data).
    let mut partial: Option<(u8, BytesMut)> = None;
    // The close frame to send before closing (None: the socket is gone).
    let mut closing: Option<(u16, Bytes)> = None;
    let mut draining = *shutdown.borrow();
    // The heartbeat: a connection silent for `heartbeat_idle_time` is closed.
    let heartbeat = ctx.cfg.heartbeat();
    let mut tick = tokio::time::interval(heartbeat.map_or(Duration::from_secs(3600), |h| h.0));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.reset();
    let mut last = Instant::now();
    'outer: while !draining {
        tokio::select! {
            _ = tick.tick(), if heartbeat.is_some() => {
                if heartbeat.is_some_and(|(_, idle)| last.elapsed() >= idle) {
                    crate::rlog!(Debug, "heartbeat: closing idle websocket connection {fd}");
                    break;
                }
            }
            r = rd.read_buf(&mut buf) => match r {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    session::touch(fd);
                    last = Instant::now();
                    loop {
                        let frame = match parse(&mut buf, max) {
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
                                    closing = Some(peer_close(&frame.payload));
                                    break 'outer;
                                }
                            }
                            OP_PING => {
                                let pong = encode(OP_PONG, FLAG_FIN, &frame.payload);
                                if wr.write_all(&pong).await.is_err() {
                                    break 'outer;
                                }
                            }
                            OP_PONG => {}
                            OP_CLOSE => {
                                closing = Some(peer_close(&frame.payload));
                                break 'outer;
                            }
                            op => {
                                let (opcode, data) = match (op, partial.take()) {
                                    (OP_CONTINUATION, Some((o, mut acc))) => {
                                        if acc.len() + frame.payload.len() > max {
                                            closing = Some((1009, Bytes::new()));
                                            break 'outer;
                                        }
                                        acc.extend_from_slice(&frame.payload);
                                        (o, acc)
                                    }
                                    (OP_CONTINUATION, None) | (_, Some(_)) => {
                                        closing = Some((1002, Bytes::new()));
                                        break 'outer;
                                    }
                                    (o, None) => (o, BytesMut::from(&frame.payload[..])),
                                };
                                if !frame.fin {
                                    partial = Some((opcode, data));
                                    continue;
                                }
                                if opcode == OP_TEXT && std::str::from_utf8(&data).is_err() {
                                    closing = Some((1007, Bytes::new()));
                                    break 'outer;
                                }
                                let out = ctx.hooks.on_ws_message(fd, data.freeze(), opcode, FLAG_FIN | FLAG_MASK);
                                if let Outcome::Fatal(code) = out {
                                    ctx.poison(code);
                                }
                            }
                        }
                    }
                }
            },
            cmd = rx.recv() => match cmd {
                Some(Cmd::Frame { opcode, flags, data }) => {
                    if wr.write_all(&encode(opcode, flags, &data)).await.is_err() {
                        break;
                    }
                }
                Some(Cmd::Close { code, reason }) => {
                    closing = Some((code, reason));
                    break;
                }
                None => break,
            },
            r = shutdown.changed() => {
                draining = r.is_err() || *shutdown.borrow();
                if draining {
                    closing = Some((1001, Bytes::new()));
                }
            }
        }
    }
    session::set_ws_status(fd, STATUS_CLOSING);
    with(|t| t.remove(&fd));
    rx.close();
    if let Some((code, reason)) = closing {
        let frame = encode(OP_CLOSE, FLAG_FIN, &close_payload(code, &reason));
        let _ = wr.write_all(&frame).await;
    }
    let _ = wr.shutdown().await;
    drop(wr);
    drop(rd);
    if let Outcome::Fatal(code) = ctx.hooks.on_close(fd, reactor, 0) {
        ctx.poison(code);
    }
    session::close(fd);
    ctx.conn_closed();
}

// ---- Client side (`Swoole\Coroutine\Http\Client`, `engine::http_client`) ----

/// Standard base64 of `data` (the client's `Sec-WebSocket-Key`).
pub fn base64_encode(data: &[u8]) -> String {
    base64(data)
}

/// A client frame: like [`encode`], masked with `mask` when given
/// (RFC 6455 5.3: every client frame is masked).
pub fn encode_masked(opcode: u8, flags: u8, payload: &[u8], mask: Option<[u8; 4]>) -> BytesMut {
    let Some(mask) = mask else {
        return encode(opcode, flags, payload);
    };
    let mut out = BytesMut::with_capacity(payload.len() + 14);
    let mut b0 = opcode & 0x0f;
    if flags & FLAG_FIN != 0 {
        b0 |= 0x80;
    }
    b0 |= ((flags >> 2) & 7) << 4;
    out.put_u8(b0);
    let n = payload.len();
    if n < 126 {
        out.put_u8(0x80 | n as u8);
    } else if n <= 0xffff {
        out.put_u8(0x80 | 126);
        out.put_u16(n as u16);
    } else {
        out.put_u8(0x80 | 127);
        out.put_u64(n as u64);
    }
    out.extend_from_slice(&mask);
    let start = out.len();
    out.extend_from_slice(payload);
    for (i, b) in out[start..].iter_mut().enumerate() {
        *b ^= mask[i & 3];
    }
    out
}

/// Cuts one server frame off `buf` (what a client reads): unmasked as a
/// server sends them (a masked one is unmasked too), RSV bits kept in
/// `rsv`. `Ok(None)` when incomplete, `Err(code)` on a protocol error.
pub fn parse_server_frame(buf: &mut BytesMut, max: usize) -> Result<Option<Frame>, u16> {
    if buf.len() < 2 {
        return Ok(None);
    }
    let b0 = buf[0];
    let b1 = buf[1];
    let fin = b0 & 0x80 != 0;
    let rsv = (b0 >> 4) & 7;
    let opcode = b0 & 0x0f;
    let masked = b1 & 0x80 != 0;
    if !matches!(opcode, 0 | 1 | 2 | 8 | 9 | 10) {
        return Err(1002);
    }
    let (len, off) = match b1 & 0x7f {
        126 => {
            if buf.len() < 4 {
                return Ok(None);
            }
            (u16::from_be_bytes([buf[2], buf[3]]) as u64, 4)
        }
        127 => {
            if buf.len() < 10 {
                return Ok(None);
            }
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[2..10]);
            (u64::from_be_bytes(b), 10)
        }
        n => (n as u64, 2),
    };
    if opcode >= 8 && (len > 125 || !fin) {
        return Err(1002);
    }
    if len > max as u64 {
        return Err(1009);
    }
    let len = len as usize;
    let mask_len = if masked { 4 } else { 0 };
    if buf.len() < off + mask_len + len {
        buf.reserve(off + mask_len + len - buf.len());
        return Ok(None);
    }
    let mask = if masked {
        Some([buf[off], buf[off + 1], buf[off + 2], buf[off + 3]])
    } else {
        None
    };
    buf.advance(off + mask_len);
    let mut payload = buf.split_to(len);
    if let Some(mask) = mask {
        for (i, b) in payload.iter_mut().enumerate() {
            *b ^= mask[i & 3];
        }
    }
    Ok(Some(Frame {
        fin,
        rsv,
        opcode,
        payload: payload.freeze(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_key_rfc_example() {
        assert_eq!(
            accept_key(b"dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    fn masked(b0: u8, payload: &[u8]) -> BytesMut {
        let mut out = BytesMut::new();
        out.put_u8(b0);
        let mask = [1u8, 2, 3, 4];
        if payload.len() < 126 {
            out.put_u8(0x80 | payload.len() as u8);
        } else {
            out.put_u8(0x80 | 126);
            out.put_u16(payload.len() as u16);
        }
        out.extend_from_slice(&mask);
        for (i, b) in payload.iter().enumerate() {
            out.put_u8(b ^ mask[i & 3]);
        }
        out
    }

    #[test]
    fn parse_masked_text_and_errors() {
        let mut b = masked(0x81, b"hello");
        let f = parse(&mut b, 100).expect("ok").expect("complete");
        assert_eq!(&f.payload[..], b"hello");
        assert!(f.fin);
        assert_eq!(f.opcode, OP_TEXT);
        assert!(b.is_empty());
        let mut big = masked(0x82, &[7u8; 300]);
        assert_eq!(parse(&mut big, 100), Err(1009));
        let mut unmasked = BytesMut::from(&[0x81u8, 2, b'h', b'i'][..]);
        assert_eq!(parse(&mut unmasked, 100), Err(1002));
        let mut half = masked(0x81, b"hello");
        half.truncate(5);
        assert_eq!(parse(&mut half, 100), Ok(None));
    }

    #[test]
    fn encode_lengths() {
        assert_eq!(
            &encode(OP_TEXT, FLAG_FIN, b"hi")[..],
            &[0x81, 2, b'h', b'i']
        );
        assert_eq!(encode(OP_BINARY, FLAG_FIN, &[0; 300])[1], 126);
        assert_eq!(encode(OP_BINARY, FLAG_FIN, &[0; 70000])[1], 127);
        assert_eq!(encode(OP_TEXT, 0, b"x")[0], 0x01);
    }
}
