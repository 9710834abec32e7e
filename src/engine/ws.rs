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
//! A WebSocket connection gets a session id (`engine::session`) like a raw
//! TCP connection, with `ws_status` 3 once open, so `$server->connections`
//! lists it. It is a `conns` entry: a push is a frame encoded by the
//! pusher (compressed when the connection negotiated it, which its session
//! slot says in every process) and written by the owner, from another
//! worker or a task worker too (an IPC `Send`; a close frame, `Close`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use http::{header, HeaderValue, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use super::conns::{self, Cmd};
use super::ctx::WorkerCtx;
use super::hooks::Outcome;
use super::http::body::RespBody;
use super::http::response::simple;
use super::http::{HttpRequest, RespContext, Responder};
use super::outflow::Outflow;
use super::session;

pub const OP_CONTINUATION: u8 = 0;
pub const OP_TEXT: u8 = 1;
pub const OP_BINARY: u8 = 2;
pub const OP_CLOSE: u8 = 8;
pub const OP_PING: u8 = 9;
pub const OP_PONG: u8 = 10;

/// `SWOOLE_WEBSOCKET_FLAG_FIN`.
pub const FLAG_FIN: u8 = 1;
/// `SWOOLE_WEBSOCKET_FLAG_COMPRESS`: compress this message (when negotiated).
pub const FLAG_COMPRESS: u8 = 2;
/// `SWOOLE_WEBSOCKET_FLAG_RSV1`: set on a compressed message.
pub const FLAG_RSV1: u8 = 4;
/// `SWOOLE_WEBSOCKET_FLAG_MASK`: Swoole reports it on every client message.
pub const FLAG_MASK: u8 = 32;
/// `WEBSOCKET_STATUS_HANDSHAKE`: a custom `handshake` callback is running.
pub const STATUS_HANDSHAKE: i32 = 2;
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

/// A frame's payload length and the offset after the length field (where
/// the mask key or the payload starts); `None` until those bytes are in.
fn payload_len(buf: &[u8]) -> Option<(u64, usize)> {
    match buf[1] & 0x7f {
        126 if buf.len() < 4 => None,
        126 => Some((u16::from_be_bytes([buf[2], buf[3]]) as u64, 4)),
        127 if buf.len() < 10 => None,
        127 => {
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[2..10]);
            Some((u64::from_be_bytes(b), 10))
        }
        n => Some((n as u64, 2)),
    }
}

/// Control frames are short and whole (1002); no message over `max` (1009).
fn check_len(opcode: u8, fin: bool, len: u64, max: usize) -> Result<usize, u16> {
    if opcode >= 8 && (len > 125 || !fin) {
        return Err(close::PROTOCOL_ERROR);
    }
    if len > max as u64 {
        return Err(close::TOO_BIG);
    }
    Ok(len as usize)
}

/// XORs `bytes` with the 4-byte `mask` (RFC 6455 5.3), in place.
fn apply_mask(bytes: &mut [u8], mask: [u8; 4]) {
    for (i, b) in bytes.iter_mut().enumerate() {
        *b ^= mask[i & 3];
    }
}

/// The payload of the frame at the start of `buf` (its first two bytes
/// already checked by the caller), unmasked, and the frame cut off `buf`;
/// `Ok(None)` until the whole frame is in.
fn cut_payload(
    buf: &mut BytesMut,
    max: usize,
    fin: bool,
    opcode: u8,
    masked: bool,
) -> Result<Option<BytesMut>, u16> {
    let Some((len, off)) = payload_len(buf) else {
        return Ok(None);
    };
    let len = check_len(opcode, fin, len, max)?;
    let mask_len = if masked { 4 } else { 0 };
    if buf.len() < off + mask_len + len {
        buf.reserve(off + mask_len + len - buf.len());
        return Ok(None);
    }
    let mask = masked.then(|| [buf[off], buf[off + 1], buf[off + 2], buf[off + 3]]);
    buf.advance(off + mask_len);
    let mut payload = buf.split_to(len);
    if let Some(mask) = mask {
        apply_mask(&mut payload, mask);
    }
    Ok(Some(payload))
}

/// Cuts one client frame off `buf`: `Ok(None)` when incomplete, `Err(code)`
/// with the close code when the peer broke the protocol.
pub fn parse(buf: &mut BytesMut, max: usize) -> Result<Option<Frame>, u16> {
    parse_ext(buf, max, false)
}

/// `parse`, with RSV1 allowed on the first frame of a data message when
/// permessage-deflate was negotiated (`deflate`).
pub fn parse_ext(buf: &mut BytesMut, max: usize, deflate: bool) -> Result<Option<Frame>, u16> {
    if buf.len() < 2 {
        return Ok(None);
    }
    let b0 = buf[0];
    let b1 = buf[1];
    let fin = b0 & 0x80 != 0;
    let rsv = rsv_bits(b0);
    let opcode = b0 & 0x0f;
    let masked = b1 & 0x80 != 0;
    if !masked || rsv & !1 != 0 {
        return Err(close::PROTOCOL_ERROR);
    }
    if !matches!(opcode, 0 | 1 | 2 | 8 | 9 | 10) {
        return Err(close::PROTOCOL_ERROR);
    }
    // RSV1 means "compressed": only with the extension, and only on the
    // first frame of a text or binary message (RFC 7692 §6).
    if rsv == 1 && (!deflate || !matches!(opcode, OP_TEXT | OP_BINARY)) {
        return Err(close::PROTOCOL_ERROR);
    }
    let Some(payload) = cut_payload(buf, max, fin, opcode, true)? else {
        return Ok(None);
    };
    Ok(Some(Frame {
        fin,
        rsv,
        opcode,
        payload: payload.freeze(),
    }))
}

/// RSV1..3 of a frame's first byte as bits 0..2 (RSV1 is 0x40 on the wire).
fn rsv_bits(b0: u8) -> u8 {
    ((b0 >> 6) & 1) | ((b0 >> 5) & 1) << 1 | ((b0 >> 4) & 1) << 2
}

/// A server frame (never masked). `flags` are `SWOOLE_WEBSOCKET_FLAG_*`.
pub fn encode(opcode: u8, flags: u8, payload: &[u8]) -> BytesMut {
    encode_masked(opcode, flags, payload, None)
}

/// The mask key Swoole writes when a frame is packed with
/// `SWOOLE_WEBSOCKET_FLAG_MASK`.
const PACK_MASK: [u8; 4] = *b"258E";

/// `WebSocket\Server::pack()`: one frame built as Swoole builds it.
/// `FLAG_COMPRESS` deflates a whole (FIN) text or binary message and sets
/// RSV1; control frames always get FIN and are never compressed; RSV2/RSV3
/// are never set; `FLAG_MASK` masks with Swoole's fixed key. A close frame
/// carries `close_code` before `data` (the reason). `Err` is the warning.
pub fn pack(opcode: u8, flags: u8, data: &[u8], close_code: u16) -> Result<BytesMut, &'static str> {
    if opcode == OP_CLOSE && data.len() > 125 {
        return Err("the max length of close reason is 125");
    }
    let mut flags = flags;
    let mut compress = flags & FLAG_COMPRESS != 0 && !data.is_empty();
    if matches!(opcode, OP_CLOSE | OP_PING | OP_PONG) {
        flags = (flags & !(FLAG_COMPRESS | FLAG_RSV1)) | FLAG_FIN;
        compress = false;
    } else if opcode == OP_CONTINUATION || flags & FLAG_FIN == 0 {
        compress = false;
    }
    let mut payload: Vec<u8>;
    let mut body: &[u8] = data;
    if compress {
        match super::ws_deflate::compress(data) {
            Some(c) => {
                payload = c;
                body = &payload;
                flags |= FLAG_RSV1;
            }
            None => flags &= !FLAG_RSV1,
        }
    }
    if opcode == OP_CLOSE {
        payload = close::encode(close_code, data).to_vec();
        body = &payload;
    }
    // RSV1..3 come from the flags; pack() only ever sets RSV1.
    let mask = (flags & FLAG_MASK != 0).then_some(PACK_MASK);
    Ok(encode_masked(
        opcode,
        flags & (FLAG_FIN | FLAG_RSV1),
        body,
        mask,
    ))
}

/// `WebSocket\Server::unpack()`: one whole frame, masked or not, its payload
/// unmasked (and inflated when RSV1 is set). Returns the frame and Swoole's
/// flags for it (FIN, RSV1..3, MASK, and COMPRESS with RSV1); `None` for
/// anything short or broken.
pub fn unpack(data: &[u8]) -> Option<(Frame, u8)> {
    if data.len() < 2 {
        return None;
    }
    let (b0, b1) = (data[0], data[1]);
    let (len, mut off) = payload_len(data)?;
    let masked = b1 & 0x80 != 0;
    let mask = if masked {
        let m = data.get(off..off + 4)?;
        off += 4;
        Some([m[0], m[1], m[2], m[3]])
    } else {
        None
    };
    let len = usize::try_from(len).ok()?;
    let mut payload = data.get(off..off.checked_add(len)?)?.to_vec();
    if let Some(m) = mask {
        apply_mask(&mut payload, m);
    }
    let rsv = rsv_bits(b0);
    let mut flags = (b0 >> 7) | rsv << 2;
    if masked {
        flags |= FLAG_MASK;
    }
    if rsv & 1 != 0 {
        payload = super::ws_deflate::decompress(&payload, 1 << 30).ok()?;
        flags |= FLAG_COMPRESS;
    }
    let frame = Frame {
        fin: b0 & 0x80 != 0,
        rsv,
        opcode: b0 & 0x0f,
        payload: Bytes::from(payload),
    };
    Some((frame, flags))
}

/// Close frames (RFC 6455 §5.5.1, §7.4): the status codes the engine
/// sends, which codes a peer may send, and the one parse and one encode of
/// a close payload.
pub mod close {
    use bytes::{BufMut, Bytes, BytesMut};

    pub const NORMAL: u16 = 1000;
    pub const GOING_AWAY: u16 = 1001;
    /// A frame or close payload that breaks the protocol.
    pub const PROTOCOL_ERROR: u16 = 1002;
    /// A text message or close reason that is not UTF-8.
    pub const INVALID_DATA: u16 = 1007;
    /// A message over `package_max_length`.
    pub const TOO_BIG: u16 = 1009;

    /// Codes a peer may put on the wire: 1000-1003 and 1007-1014 (the
    /// defined and IANA-registered ones; 1004-1006 and 1015 are reserved
    /// or must never be sent), and 3000-4999 (libraries, applications).
    pub fn is_valid(code: u16) -> bool {
        matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999)
    }

    /// A peer's close payload: `Ok((code, reason))` to echo, or
    /// `Err(code)` to close with instead (a 1-byte payload or a code that
    /// may not be sent: 1002; a reason that is not UTF-8: 1007). An empty
    /// payload is answered with 1000.
    pub fn parse(payload: &Bytes) -> Result<(u16, Bytes), u16> {
        match payload.len() {
            0 => Ok((NORMAL, Bytes::new())),
            1 => Err(PROTOCOL_ERROR),
            _ => {
                let code = u16::from_be_bytes([payload[0], payload[1]]);
                if !is_valid(code) {
                    return Err(PROTOCOL_ERROR);
                }
                let reason = payload.slice(2..);
                if std::str::from_utf8(&reason).is_err() {
                    return Err(INVALID_DATA);
                }
                Ok((code, reason))
            }
        }
    }

    /// The payload of a close frame: the code, then at most 123 bytes of
    /// reason (a control frame carries at most 125).
    pub fn encode(code: u16, reason: &[u8]) -> BytesMut {
        let mut p = BytesMut::with_capacity(2 + reason.len());
        p.put_u16(code);
        p.extend_from_slice(&reason[..reason.len().min(123)]);
        p
    }

    /// What to answer a peer's close frame with: its own code and reason
    /// when valid, else the error code with no reason.
    pub fn answer(payload: &Bytes) -> (u16, Bytes) {
        parse(payload).unwrap_or_else(|code| (code, Bytes::new()))
    }
}

/// Queues a frame on WebSocket connection `fd` (here or in its owner
/// worker). False when `fd` is not an open WebSocket connection.
pub fn push(fd: i64, opcode: u8, flags: u8, data: Bytes) -> bool {
    push_bounded(fd, opcode, flags, data).unwrap_or(false)
}

/// `push`, refused with `Err(outflow)` when the connection's output
/// buffer is full (a push to another worker's connection is bounded by
/// that owner). The frame is encoded here, compressed when the
/// connection negotiated permessage-deflate; the owner only writes it.
pub fn push_bounded(fd: i64, opcode: u8, flags: u8, data: Bytes) -> Result<bool, Rc<Outflow>> {
    let Some(deflate) = compresses(fd) else {
        return Ok(false);
    };
    conns::push_bounded(fd, outgoing(opcode, flags, &data, deflate).freeze())
}

/// `Some(permessage-deflate on)` when `fd` is a WebSocket connection:
/// ours, or open in another worker.
fn compresses(fd: i64) -> Option<bool> {
    match conns::get(fd) {
        Some(c) => (c.kind() == conns::Kind::WebSocket).then(|| c.compress()),
        None => session::get(fd)
            .filter(|s| s.ws_status == STATUS_ACTIVE)
            .map(|s| s.ws_compress),
    }
}

/// Sends a close frame with `code` and `reason`, then closes `fd`.
pub fn disconnect(fd: i64, code: u16, reason: Bytes) -> bool {
    if compresses(fd).is_none() {
        return false;
    }
    let frame = encode(OP_CLOSE, FLAG_FIN, &close::encode(code, &reason));
    conns::close_after(fd, false, frame.freeze())
}

/// True when `fd` is a WebSocket connection (in any worker).
pub fn is_websocket(fd: i64) -> bool {
    compresses(fd).is_some()
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
) -> Response<RespBody> {
    let custom = ctx.hooks.ws_handshake();
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
    let deflate = if ctx.hooks.ws_compression() {
        super::ws_deflate::negotiate(
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
        headers: parts.headers,
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
    let port = conns::get(fd).map_or(0, |c| c.port());
    let (guard, rx) = conns::register(fd, conns::Kind::WebSocket, port, &ctx);
    let (mut r, open_request) = if custom {
        session::set_ws_status(fd, STATUS_HANDSHAKE);
        let (responder, head_rx) = Responder::new(RespContext {
            is_head: false,
            keep_alive: true,
            coding: None,
            compression: None,
            compression_types: None,
            outflow: None,
        });
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
    } else if ctx.hooks.ws_before_handshake_response() {
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
    fates(|t| t.insert(http_fd, Fate::Upgraded));
    guard.own_session();
    guard.conn().set_compress(deflate_on);
    session::set_ws_status(fd, STATUS_ACTIVE);
    session::set_ws_compress(fd, deflate_on);
    let task_ctx = ctx.clone();
    tokio::task::spawn_local(async move {
        match on.await {
            Ok(up) => {
                let setup = Setup {
                    open: open_request,
                    deflate: deflate_on,
                };
                serve(TokioIo::new(up), guard, rx, setup, task_ctx).await
            }
            // The guard's drop frees the id.
            Err(e) => crate::rlog!(Debug, "websocket upgrade of {fd} failed: {e}"),
        }
    });
    r
}

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
    let (responder, head_rx) = Responder::new(RespContext {
        is_head: false,
        keep_alive: true,
        coding: None,
        compression: None,
        compression_types: None,
        outflow: None,
    });
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
}

/// One WebSocket connection's task: frames in, hooks called, commands
/// (caller-encoded frames, raw bytes, a close) written in order. `guard`
/// (`conns::register`) ends the connection's life when it drops, however
/// the task ends.
async fn serve<S>(
    io: S,
    guard: conns::Guard,
    mut rx: mpsc::UnboundedReceiver<Cmd>,
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
    let sent = |n: usize| conn.flow().sent(n);
    let (mut rd, mut wr) = tokio::io::split(io);
    let max = ctx.cfg.package_max_length;
    let control = ctx.hooks.ws_control_frames();
    let mut shutdown = ctx.shutdown.subscribe();
    let mut buf = BytesMut::with_capacity(16 * 1024);
    // A fragmented message being put together: (opcode, compressed, data).
    let mut partial: Option<(u8, bool, BytesMut)> = None;
    // The close frame to send before closing (None: the socket is gone).
    let mut closing: Option<(u16, Bytes)> = None;
    // What a `close()` asked to write last (its caller-encoded close frame;
    // empty from the heartbeat, which closes without one).
    let mut last: Option<Bytes> = None;
    let mut draining = *shutdown.borrow();
    'outer: while !draining {
        tokio::select! {
            r = rd.read_buf(&mut buf) => match r {
                Ok(0) | Err(_) => break,
                Ok(_) => {
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
                                if wr.write_all(&pong).await.is_err() {
                                    break 'outer;
                                }
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
                                        (o, c, acc)
                                    }
                                    (OP_CONTINUATION, None) | (_, Some(_)) => {
                                        closing = Some((close::PROTOCOL_ERROR, Bytes::new()));
                                        break 'outer;
                                    }
                                    (o, None) => (o, frame.rsv & 1 != 0, BytesMut::from(&frame.payload[..])),
                                };
                                if !frame.fin {
                                    partial = Some((opcode, compressed, data));
                                    continue;
                                }
                                let (data, flags) = if compressed {
                                    match super::ws_deflate::decompress(&data, max) {
                                        Ok(v) => (Bytes::from(v), FLAG_FIN | FLAG_MASK | FLAG_RSV1 | FLAG_COMPRESS),
                                        Err(e) => {
                                            closing = Some((e.close_code(), Bytes::new()));
                                            break 'outer;
                                        }
                                    }
                                } else {
                                    (data.freeze(), FLAG_FIN | FLAG_MASK)
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
            },
            cmd = rx.recv() => match cmd {
                // A frame encoded by the pusher, or `send()`'s raw bytes.
                Some(Cmd::Data(data)) => {
                    if wr.write_all(&data).await.is_err() {
                        break;
                    }
                    sent(data.len());
                }
                Some(Cmd::Close { last: bytes, .. }) => {
                    last = Some(bytes);
                    break;
                }
                Some(Cmd::Pause | Cmd::Resume) => {}
                None => break,
            },
            r = shutdown.changed() => {
                draining = r.is_err() || *shutdown.borrow();
                if draining {
                    closing = Some((close::GOING_AWAY, Bytes::new()));
                }
            }
        }
    }
    session::set_ws_status(fd, STATUS_CLOSING);
    guard.unregister();
    rx.close();
    // Writers waiting for room give up; what was queued is freed with `rx`.
    conn.flow().close();
    if let Some(bytes) = last {
        if !bytes.is_empty() {
            let _ = wr.write_all(&bytes).await;
        }
    } else if let Some((code, reason)) = closing {
        let frame = encode(OP_CLOSE, FLAG_FIN, &close::encode(code, &reason));
        let _ = wr.write_all(&frame).await;
    }
    let _ = wr.shutdown().await;
    drop(wr);
    drop(rd);
    if let Outcome::Fatal(code) = ctx.hooks.on_close(fd, reactor, 0) {
        ctx.poison(code);
    }
    // Session slot freed, drain count down.
    drop(guard);
}

/// A pushed frame as it goes out: on a connection that negotiated
/// permessage-deflate, every whole non-empty text or binary message is
/// compressed (Swoole sets `FLAG_COMPRESS` on every push to such a
/// connection); without the extension `FLAG_COMPRESS` is ignored, since a
/// client must fail a connection that gets RSV1 it did not agree to.
fn outgoing(opcode: u8, flags: u8, data: &[u8], deflate: bool) -> BytesMut {
    if deflate && matches!(opcode, OP_TEXT | OP_BINARY) && flags & FLAG_FIN != 0 && !data.is_empty()
    {
        if let Some(c) = super::ws_deflate::compress(data) {
            return encode(opcode, flags | FLAG_RSV1, &c);
        }
    }
    encode(opcode, flags, data)
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
    use crate::engine::ctx::WorkerCtx;
    use crate::engine::tcp::tests::{ctx, run, until_seen, Rec};

    fn start(ctx: &Rc<WorkerCtx>) -> (DuplexStream, i64, JoinHandle<()>) {
        let (server, client) = tokio::io::duplex(64 * 1024);
        let peer = "127.0.0.1:4000".parse().expect("addr");
        let fd = session::open(ctx.id as i32, 0, 80, peer);
        let (guard, rx) = conns::register(fd, conns::Kind::WebSocket, 0, ctx);
        session::set_ws_status(fd, STATUS_ACTIVE);
        let setup = Setup {
            open: None,
            deflate: false,
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

// ---- Client side (`Swoole\Coroutine\Http\Client`, `engine::http_client`) ----

/// Standard base64 of `data` (the client's `Sec-WebSocket-Key`).
pub fn base64_encode(data: &[u8]) -> String {
    base64(data)
}

/// A frame, masked with `mask` when given (RFC 6455 5.3: every client
/// frame is masked; a server's never is). `flags` are
/// `SWOOLE_WEBSOCKET_FLAG_*`: FIN, and RSV1..3 (0x40, 0x20, 0x10 on the
/// wire) from FLAG_RSV1 (4), _RSV2 (8), _RSV3 (16).
pub fn encode_masked(opcode: u8, flags: u8, payload: &[u8], mask: Option<[u8; 4]>) -> BytesMut {
    let mut out = BytesMut::with_capacity(payload.len() + 14);
    let mut b0 = opcode & 0x0f;
    if flags & FLAG_FIN != 0 {
        b0 |= 0x80;
    }
    if flags & FLAG_RSV1 != 0 {
        b0 |= 0x40;
    }
    if flags & 8 != 0 {
        b0 |= 0x20;
    }
    if flags & 16 != 0 {
        b0 |= 0x10;
    }
    out.put_u8(b0);
    let mask_bit = if mask.is_some() { 0x80 } else { 0 };
    let n = payload.len();
    if n < 126 {
        out.put_u8(mask_bit | n as u8);
    } else if n <= 0xffff {
        out.put_u8(mask_bit | 126);
        out.put_u16(n as u16);
    } else {
        out.put_u8(mask_bit | 127);
        out.put_u64(n as u64);
    }
    let start = out.len() + if mask.is_some() { 4 } else { 0 };
    if let Some(mask) = mask {
        out.extend_from_slice(&mask);
    }
    out.extend_from_slice(payload);
    if let Some(mask) = mask {
        apply_mask(&mut out[start..], mask);
    }
    out
}

/// Cuts one server frame off `buf` (what a client reads): unmasked as a
/// server sends them (a masked one is unmasked too), RSV bits kept in
/// `rsv` (as `parse` keeps them: RSV1 is bit 0). `Ok(None)` when incomplete, `Err(code)` on a protocol error.
pub fn parse_server_frame(buf: &mut BytesMut, max: usize) -> Result<Option<Frame>, u16> {
    if buf.len() < 2 {
        return Ok(None);
    }
    let b0 = buf[0];
    let b1 = buf[1];
    let fin = b0 & 0x80 != 0;
    let rsv = rsv_bits(b0);
    let opcode = b0 & 0x0f;
    let masked = b1 & 0x80 != 0;
    if !matches!(opcode, 0 | 1 | 2 | 8 | 9 | 10) {
        return Err(close::PROTOCOL_ERROR);
    }
    let Some(payload) = cut_payload(buf, max, fin, opcode, masked)? else {
        return Ok(None);
    };
    Ok(Some(Frame {
        fin,
        rsv,
        opcode,
        payload: payload.freeze(),
    }))
}

#[cfg(test)]
mod tests {

    #[test]
    fn close_payloads_are_checked() {
        let p = |b: &[u8]| close::parse(&Bytes::copy_from_slice(b));
        assert_eq!(p(b""), Ok((1000, Bytes::new())));
        assert_eq!(p(b"\x03"), Err(1002));
        for code in [0u16, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
            assert_eq!(p(&code.to_be_bytes()), Err(1002), "{code}");
        }
        for code in [1000u16, 1001, 1003, 1007, 1011, 1014, 3000, 4999] {
            assert_eq!(p(&code.to_be_bytes()), Ok((code, Bytes::new())), "{code}");
        }
        assert_eq!(p(b"\x03\xe8\xff\xfe"), Err(1007));
        assert_eq!(
            p(b"\x03\xe8ok").map(|(c, r)| (c, r.to_vec())),
            Ok((1000, b"ok".to_vec()))
        );
        assert_eq!(&close::encode(1002, b"")[..], b"\x03\xea");
    }
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
    fn rsv1_only_with_deflate_on_first_data_frame() {
        let mut b = masked(0xc1, b"x");
        assert_eq!(parse(&mut b, 100), Err(1002));
        let mut b = masked(0xc1, b"x");
        assert_eq!(parse_ext(&mut b, 100, true).unwrap().unwrap().rsv, 1);
        let mut cont = masked(0x40, b"x");
        assert_eq!(parse_ext(&mut cont, 100, true), Err(1002));
        let mut ping = masked(0xc9, b"");
        assert_eq!(parse_ext(&mut ping, 100, true), Err(1002));
        let mut rsv2 = masked(0xa1, b"x");
        assert_eq!(parse_ext(&mut rsv2, 100, true), Err(1002));
        let mut op3 = masked(0x83, b"x");
        assert_eq!(parse_ext(&mut op3, 100, true), Err(1002));
    }

    #[test]
    fn pack_and_unpack() {
        let f = pack(OP_TEXT, FLAG_FIN, b"hi", 0).unwrap();
        assert_eq!(&f[..], &[0x81, 2, b'h', b'i']);
        let (fr, flags) = unpack(&f).unwrap();
        assert_eq!(
            (fr.opcode, &fr.payload[..], flags),
            (OP_TEXT, &b"hi"[..], FLAG_FIN)
        );
        // Masked with Swoole's key, then read back.
        let m = pack(OP_BINARY, FLAG_FIN | FLAG_MASK, b"abcd", 0).unwrap();
        assert_eq!(&m[..6], &[0x82, 0x84, b'2', b'5', b'8', b'E']);
        let (fr, flags) = unpack(&m).unwrap();
        assert_eq!(&fr.payload[..], b"abcd");
        assert_eq!(flags, FLAG_FIN | FLAG_MASK);
        // Compressed: RSV1 set, inflated by unpack, COMPRESS reported.
        let text = "hello hello hello hello hello".repeat(10);
        let c = pack(OP_TEXT, FLAG_FIN | FLAG_COMPRESS, text.as_bytes(), 0).unwrap();
        assert_eq!(c[0], 0xc1);
        assert!(c.len() < text.len());
        let (fr, flags) = unpack(&c).unwrap();
        assert_eq!(&fr.payload[..], text.as_bytes());
        assert_eq!(flags, FLAG_FIN | FLAG_RSV1 | FLAG_COMPRESS);
        // Control frames: FIN forced, never compressed; close carries its code.
        let p = pack(OP_PING, FLAG_COMPRESS, b"p", 0).unwrap();
        assert_eq!(&p[..], &[0x89, 1, b'p']);
        let cl = pack(OP_CLOSE, 0, b"bye", 4000).unwrap();
        assert_eq!(&cl[..], &[0x88, 5, 0x0f, 0xa0, b'b', b'y', b'e']);
        assert_eq!(
            pack(OP_PING, FLAG_FIN, &[0; 126], 0).map(|b| b.len()).ok(),
            Some(130)
        );
        // RSV2/RSV3 are never written by pack.
        assert_eq!(pack(OP_TEXT, FLAG_FIN | 8 | 16, b"", 0).unwrap()[0], 0x81);
        // Short or truncated input.
        assert!(unpack(&[0x81]).is_none());
        assert!(unpack(&[0x81, 5, b'a']).is_none());
    }

    #[test]
    fn outgoing_compresses_only_when_negotiated() {
        let data = vec![b'a'; 1000];
        assert_eq!(
            outgoing(OP_TEXT, FLAG_FIN | FLAG_COMPRESS, &data, false)[0],
            0x81
        );
        let c = outgoing(OP_TEXT, FLAG_FIN, &data, true);
        assert_eq!(c[0], 0xc1);
        let (fr, _) = unpack(&c).unwrap();
        assert_eq!(&fr.payload[..], &data[..]);
        assert_eq!(outgoing(OP_PING, FLAG_FIN, b"x", true)[0], 0x89);
        assert_eq!(outgoing(OP_TEXT, 0, b"x", true)[0], 0x01);
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
