//! The HTTP/1 fast path: the common request on a clear-text keep-alive
//! connection is read, handed to the script and answered here, without
//! hyper; anything else goes to hyper with the bytes already read.
//!
//! Why a path beside hyper (docs/internals.md, "HTTP/1 fast path"): most of
//! a hello-world request's user-space instructions outside PHP were hyper's
//! per-request machinery (its dispatcher, the service future, the
//! Title-Case head writer, the keep-alive fix-ups), not the parse. Here a
//! complete head in the buffer is read by `scan` when it has the common
//! shape, else parsed with httparse (hyper's own parser) as hyper would,
//! the request goes to the same `exchange::start` as hyper's service, and a
//! plain answer (a whole body, an ordinary status) is written as one buffer
//! in the bytes hyper would have written.
//!
//! Everything else is hyper's, so its rules hold unchanged:
//! - before the script runs (`Handoff` with no `replay`): a head that is
//!   incomplete at the header timeout's end is closed like hyper closes it;
//!   a head httparse or `http` refuses, one over the size or count limits,
//!   a body not yet all in, `Transfer-Encoding`, `Expect`, `Upgrade`,
//!   `CONNECT`, `HEAD`, a target not in origin form, two Host lines,
//!   `Connection: close`, HTTP/1.0 without keep-alive, a poisoned, full or
//!   draining worker. hyper reads those bytes again from the start
//!   and serves the rest of the connection.
//! - after (`Handoff` with `replay`): an answer that is not plain (a
//!   stream from `write()`, a file, trailers, 1xx/204/304, a reason phrase,
//!   names to send as spelled, `Content-Length`, `Transfer-Encoding` or
//!   `Date` set by the script). hyper reads the request again and its
//!   service returns this response instead of calling the script twice.

use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::OnceLock;

use bytes::{Bytes, BytesMut};
use http::header;
use http::{Method, Response, StatusCode, Uri, Version};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::body::{put, title_case_into, HeadLines, RespBody};
use super::exchange::{Answer, Counting};
use super::request::{HttpRequest, RawHeaders, ReqHeaders};
use super::scan::le8;
use super::stream::{Counted, Kill};
use crate::engine::net::conns::Conn;
use crate::engine::net::outflow::Outflow;
use crate::engine::worker::bufpool::Kit;
use crate::engine::worker::ctx::WorkerCtx;

/// Header lines parsed on the stack: hyper's default count.
const MAX_HEADERS: usize = 100;

/// Largest body the fast path takes (a larger one is hyper's: it may be
/// spooled to disk, and is read under `http_body_timeout`).
const MAX_BODY: usize = 64 * 1024;

/// Read buffer of a connection, grown as a request needs: most heads fit,
/// and an idle keep-alive connection holds no more than this.
const READ_CHUNK: usize = 1024;

/// How a connection left the fast path.
pub(super) enum End {
    /// The connection is over (closed by either side, the script, the
    /// header timeout, or a failed write).
    Closed { failed: bool },
    /// hyper serves the rest of the connection, reading `rest` first.
    /// `replay`: the answer to the first request in `rest`, which the
    /// script already gave.
    Handoff {
        rest: Bytes,
        replay: Option<Box<Response<RespBody>>>,
    },
}

/// False when `RSWOOLE_HTTP_FAST=0` (every request through hyper; tests
/// compare the two paths' bytes with it).
fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("RSWOOLE_HTTP_FAST").map_or(true, |v| v != "0"))
}

/// True when connection `counted` may start on the fast path.
pub(super) fn eligible(
    ctx: &WorkerCtx,
    many_headers: bool,
    peer: &SocketAddr,
    counted: &Counted,
) -> bool {
    let cfg = &ctx.cfg;
    enabled()
        && !many_headers
        && counted.is_plain()
        // A unix peer may leave out Host; hyper's path knows that rule.
        && !crate::engine::net::listener::is_unix_peer(peer)
        && !(cfg.enable_static_handler && cfg.document_root.is_some())
        && cfg.worker_max_concurrency == 0
}

/// A request head the fast path serves.
struct Head {
    method: Method,
    uri: Uri,
    version: Version,
    headers: RawHeaders,
    /// Bytes of head and body in the buffer.
    len: usize,
    body: std::ops::Range<usize>,
}

/// What the buffer holds. (Returned once per request and matched at
/// once: boxing the head would cost an allocation per request.)
#[allow(clippy::large_enum_variant)]
enum Parsed {
    /// A request the fast path serves.
    Ready(Head),
    /// Not all of the head yet.
    Partial,
    /// hyper's, and why (the reasons are in the module comment).
    Hyper(&'static str),
}

/// Parses the request at the start of `buf`: the common shape with the
/// scanner (`scan::head`), anything else with httparse, as before.
fn parse(buf: &Bytes, ctx: &WorkerCtx) -> Parsed {
    let cfg = &ctx.cfg;
    let max = cfg.http_max_headers.min(MAX_HEADERS);
    let mut lines = Vec::with_capacity(8);
    let (method, target, version, head_len) = match super::scan::head(buf, max, &mut lines) {
        Some(h) => (h.method, h.target, h.version, h.len),
        None => {
            lines.clear();
            match parse_httparse(buf, (max, cfg.http_max_header_size), &mut lines) {
                Ok(h) => h,
                Err(Some(why)) => return Parsed::Hyper(why),
                Err(None) => return Parsed::Partial,
            }
        }
    };
    if head_len > cfg.http_max_header_size {
        return Parsed::Hyper("head too large");
    }
    // (Both readers took a target starting with `/`: one byte long, it is
    // `/`, which `Uri::default()` is without a parse.)
    let uri = if target.len() == 1 {
        Uri::default()
    } else {
        match Uri::from_maybe_shared(buf.slice(target)) {
            Ok(uri) => uri,
            Err(_) => return Parsed::Hyper("target"),
        }
    };
    let mut hosts = 0;
    let mut length: Option<usize> = None;
    let mut keep_alive = version == Version::HTTP_11;
    let mut accept_encoding = u32::MAX;
    for (k, l) in lines.iter().enumerate() {
        // The scanner and httparse took the name only if it is a token
        // (what `HeaderName` requires too) and the value only if every
        // byte is a field value byte (what `HeaderValue` requires): nothing
        // to check again. The names that matter here are told apart by
        // length first.
        let name = &buf[l[0] as usize..l[1] as usize];
        let value = &buf[l[2] as usize..l[3] as usize];
        // (The first letter before the rest: `User-Agent` is as long as
        // `Connection`, `Accept` as `Expect`.)
        let is = |n: &[u8]| (name[0] | 0x20) == n[0] && eq_lower(name, n);
        match name.len() {
            4 if is(b"host") => hosts += 1,
            14 if is(b"content-length") => {
                if length.is_some() {
                    return Parsed::Hyper("content-length");
                }
                match parse_length(value) {
                    Some(n) => length = Some(n),
                    None => return Parsed::Hyper("content-length"),
                }
            }
            10 if is(b"connection") => {
                // The common value first, without splitting it.
                if eq_lower(value, b"keep-alive") {
                    keep_alive = true;
                } else {
                    let close = has_token(value, b"close");
                    if close || has_token(value, b"upgrade") {
                        return Parsed::Hyper("connection");
                    }
                    if has_token(value, b"keep-alive") {
                        keep_alive = true;
                    }
                }
            }
            15 if accept_encoding == u32::MAX && is(b"accept-encoding") => {
                accept_encoding = k as u32;
            }
            6 | 7 | 17 if is(b"transfer-encoding") || is(b"expect") || is(b"upgrade") => {
                return Parsed::Hyper("transfer-encoding, expect or upgrade");
            }
            _ => {}
        }
    }
    // At most one Host (none is served, as by Swoole and `conn::check_host`).
    if hosts > 1 {
        return Parsed::Hyper("host");
    }
    if !keep_alive {
        return Parsed::Hyper("not keep-alive");
    }
    let body_len = length.unwrap_or(0);
    if body_len > MAX_BODY
        || body_len > cfg.package_max_length
        || body_len > cfg.http_body_buffer_size
    {
        return Parsed::Hyper("large body");
    }
    let len = head_len + body_len;
    if buf.len() < len {
        // hyper reads the rest under `http_body_timeout`.
        return Parsed::Hyper("body not all in");
    }
    Parsed::Ready(Head {
        method,
        uri,
        version,
        headers: RawHeaders {
            buf: buf.clone(),
            lines,
            accept_encoding,
        },
        len,
        body: head_len..len,
    })
}

/// A request line and head length read by httparse (every head the
/// scanner does not take) with `max` lines at most, its lines in `lines`
/// (`max_size`: the head size limit); `Err(Some(why))`: hyper's, and why,
/// `Err(None)`: not all of the head yet.
fn parse_httparse(
    buf: &Bytes,
    (max, max_size): (usize, usize),
    lines: &mut Vec<[u32; 4]>,
) -> Result<(Method, std::ops::Range<usize>, Version, usize), Option<&'static str>> {
    // Uninitialised: httparse writes the lines it finds (no 3 KiB of
    // zeroes per request).
    let mut slots = [const { std::mem::MaybeUninit::<httparse::Header>::uninit() }; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut []);
    let head_len = match req.parse_with_uninit_headers(buf, &mut slots[..max]) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => {
            return Err((buf.len() > max_size).then_some("head too large"));
        }
        Err(_) => return Err(Some("unparsed head")),
    };
    let (Some(m), Some(path), Some(v)) = (req.method, req.path, req.version) else {
        return Err(Some("unparsed head"));
    };
    let method = match m {
        "GET" => Method::GET,
        "POST" => Method::POST,
        "PUT" => Method::PUT,
        "DELETE" => Method::DELETE,
        "PATCH" => Method::PATCH,
        "OPTIONS" => Method::OPTIONS,
        _ => return Err(Some("method")),
    };
    let version = if v == 1 {
        Version::HTTP_11
    } else {
        Version::HTTP_10
    };
    if !path.starts_with('/') {
        return Err(Some("target form"));
    }
    if !path.is_ascii() {
        // Refused on hyper's path (`conn::target_is_ascii`).
        return Err(Some("target not ASCII"));
    }
    let base = buf.as_ptr() as usize;
    let at = |b: &[u8]| (b.as_ptr() as usize - base) as u32;
    let target = at(path.as_bytes()) as usize;
    lines.reserve(req.headers.len());
    for h in req.headers.iter() {
        let (n, v) = (at(h.name.as_bytes()), at(h.value));
        lines.push([n, n + h.name.len() as u32, v, v + h.value.len() as u32]);
    }
    Ok((method, target..target + path.len(), version, head_len))
}

/// A `Content-Length` value: digits only, as hyper takes it.
fn parse_length(v: &[u8]) -> Option<usize> {
    if v.is_empty() || v.len() > 15 {
        return None;
    }
    let mut n = 0usize;
    for &c in v {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n * 10 + usize::from(c - b'0');
    }
    Some(n)
}

/// `a` equals `lower` but for case; `lower` is lower-case letters and `-`
/// only. (Setting bit 0x20 of a byte of `a` gives a letter of `lower` only
/// from that letter in either case, and `-` only from `-` or CR, which no
/// name or value the scanner or httparse took holds.) Compared a word at a
/// time (the last word overlapping the one before).
#[inline]
fn eq_lower(a: &[u8], lower: &[u8]) -> bool {
    let n = a.len();
    if n != lower.len() {
        return false;
    }
    let w4 = |s: &[u8], i: usize| {
        s.get(i..)
            .and_then(<[u8]>::first_chunk::<4>)
            .map(|w| u32::from_le_bytes(*w))
    };
    const UP8: u64 = 0x2020_2020_2020_2020;
    const UP4: u32 = 0x2020_2020;
    match n {
        8.. => {
            let mut i = 0;
            while i + 8 < n {
                if le8(a, i).map(|w| w | UP8) != le8(lower, i) {
                    return false;
                }
                i += 8;
            }
            le8(a, n - 8).map(|w| w | UP8) == le8(lower, n - 8)
        }
        4..=7 => {
            w4(a, 0).map(|w| w | UP4) == w4(lower, 0)
                && w4(a, n - 4).map(|w| w | UP4) == w4(lower, n - 4)
        }
        _ => a.iter().zip(lower).all(|(&c, &l)| c | 0x20 == l),
    }
}

/// True when comma-separated `value` has `token` (case-insensitive).
fn has_token(value: &[u8], token: &[u8]) -> bool {
    value
        .split(|&c| c == b',')
        .any(|t| t.trim_ascii().eq_ignore_ascii_case(token))
}

/// Serves connection `io` while its requests are the common kind.
///
/// Between requests the task holds no buffer and only the small state of
/// its wait (memory per idle keep-alive connection): the read buffer is
/// taken from the worker's pool once the socket is readable, and what a
/// request needs across an await is boxed, only when it must wait.
pub(super) async fn serve(
    io: &mut Counted,
    ctx: &Rc<WorkerCtx>,
    entry: &Rc<Conn>,
    kill: &Kill,
    at: (SocketAddr, Option<SocketAddr>, u16),
    flow: Rc<Outflow>,
) -> End {
    let fd = entry.fd();
    // The wait for the worker's drain (see `drain_ready`).
    let mut draining: Option<DrainWait> = None;
    let mut buf = BytesMut::new();
    loop {
        // Wait for a whole head, under the header timeout (hyper's rule:
        // it runs while the connection waits for a request, idle or not).
        // The request is parsed and started inside the `if` below, so
        // that its head and its answer never live across an await here
        // (the task's size is memory every idle connection holds).
        let mut timeout: Option<super::header_timer::HeaderSleep> = None;
        let (bytes, len, room, started) = loop {
            if !buf.is_empty() {
                // The bytes read, frozen (the request's values point into
                // them); `buf` keeps the room after them, in the same
                // allocation (see `next_buf`).
                let room = buf.capacity();
                let bytes = buf.split().freeze();
                match parse(&bytes, ctx) {
                    Parsed::Ready(head) => {
                        if super::gate::over_server_limit(&ctx.cfg) || ctx.is_draining() {
                            return handoff(fd, "limit or draining", bytes, None);
                        }
                        let len = head.len;
                        let started = start(io, ctx, entry, kill, at, &flow, head, bytes.clone());
                        break (bytes, len, room, started);
                    }
                    Parsed::Hyper(why) => return handoff(fd, why, bytes, None),
                    Parsed::Partial => {
                        // The whole buffer again, so that nothing else
                        // holds its memory.
                        drop(std::mem::take(&mut buf));
                        buf = reuse(bytes, 0);
                    }
                }
            }
            if *ctx.shutdown.borrow() || ctx.poisoned.get().is_some() {
                return handoff(fd, "draining", buf.freeze(), None);
            }
            let sleep = timeout.get_or_insert_with(|| {
                super::header_timer::sleep_after(ctx.cfg.http_header_timeout)
            });

            tokio::select! {
                biased;
                r = read_some(io, &mut buf, &ctx.http_bufs) => match r {
                    Ok(0) => return End::Closed { failed: !buf.is_empty() },
                    Ok(_) => {}
                    Err(_) => return End::Closed { failed: true },
                },
                _ = kill.notified() => return End::Closed { failed: false },
                _ = std::future::poll_fn(|cx| drain_ready(ctx, &mut draining, cx)) => {}
                _ = sleep => return End::Closed { failed: true },
            }
        };
        drop(timeout);
        let sent = resolve(started).await;
        let keep = match sent {
            Sent::Done { keep } => keep,
            Sent::Rest {
                kit,
                at,
                large,
                keep,
            } => {
                let rest = Box::pin(write_rest(io, ctx, kit, at, large));
                if rest.await.is_err() {
                    return End::Closed { failed: true };
                }
                keep
            }
            Sent::End(end) => return end,
        };
        io.mark_flushed();
        // (Closed by the script after it ended this answer: the end.)
        if !keep || kill.is_set() {
            let close = Box::pin(io.shutdown());
            let _ = close.await;
            return End::Closed { failed: false };
        }
        buf = next_buf(bytes, len, room, std::mem::take(&mut buf));
        if buf.is_empty() {
            // Idle: the buffer goes back to the worker's pool.
            ctx.http_bufs.give_read(std::mem::take(&mut buf));
        }
    }
}

/// A wait on the worker's drain signal (a watch's `changed()`).
type DrainWait = std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>;

/// Ready once the worker drains. The signal only ever goes from false to
/// true (`ctx.shutdown`), so its waiter is made and polled once per
/// connection, then left in the watch's list with the task's waker: a
/// wake-up from it is seen in the flag (a `changed()` made, polled and
/// dropped on every request would enter the list and leave it each time).
fn drain_ready(
    ctx: &WorkerCtx,
    wait: &mut Option<DrainWait>,
    cx: &mut std::task::Context<'_>,
) -> std::task::Poll<()> {
    if *ctx.shutdown.borrow() {
        return std::task::Poll::Ready(());
    }
    if wait.is_none() {
        let mut rx = ctx.shutdown.subscribe();
        let mut w: DrainWait = Box::pin(async move {
            let _ = rx.changed().await;
        });
        if std::future::Future::poll(w.as_mut(), cx).is_ready() {
            return std::task::Poll::Ready(());
        }
        *wait = Some(w);
    }
    std::task::Poll::Pending
}

/// Reads into `buf`; an idle connection's empty `buf` (no capacity) gets
/// one from `pool` only once the socket is readable.
///
/// The socket's readiness can be stale: a read that took all there was
/// without reaching `WouldBlock` (the common case) leaves it set. The read
/// that then finds nothing clears it, and the buffer goes back to the pool
/// before the wait: else every idle keep-alive connection would hold one
/// (bench/idle.sh measured 1 KiB per connection).
async fn read_some(
    io: &mut Counted,
    buf: &mut BytesMut,
    pool: &crate::engine::worker::bufpool::BufPool,
) -> std::io::Result<usize> {
    if buf.capacity() == 0 {
        loop {
            std::future::poll_fn(|cx| io.poll_readable(cx)).await?;
            *buf = pool.take_read(READ_CHUNK);
            // Readable: read at once (no second readiness look, no waker).
            if let Some(r) = io.try_read_now(buf) {
                return r;
            }
            if !io.is_plain() {
                break;
            }
            // Nothing there after all (readiness now cleared): wait with
            // no buffer.
            pool.give_read(std::mem::take(buf));
        }
    } else {
        buf.reserve(READ_CHUNK);
    }
    io.read_buf(buf).await
}

/// What became of an answer once written as far as the socket took it.
enum Sent {
    /// All written.
    Done {
        keep: bool,
    },
    /// `kit.out` from `at` on (then `large`) is still to write.
    Rest {
        kit: Kit,
        at: usize,
        large: Option<Bytes>,
        keep: bool,
    },
    End(End),
}

/// A request started, and how its answer comes: now (`Err`: written as far
/// as the socket took it) or later (`Ok`: boxed, only then).
type Started<'a> = Result<std::pin::Pin<Box<dyn std::future::Future<Output = Sent> + 'a>>, Sent>;

/// The answer of a started request.
async fn resolve(started: Started<'_>) -> Sent {
    match started {
        Ok(later) => later.await,
        Err(sent) => sent,
    }
}

/// Hands request `head` (in `bytes`) to the script.
#[allow(clippy::too_many_arguments)]
fn start<'a>(
    io: &'a mut Counted,
    ctx: &'a Rc<WorkerCtx>,
    entry: &'a Rc<Conn>,
    kill: &'a Kill,
    at: (SocketAddr, Option<SocketAddr>, u16),
    flow: &Rc<Outflow>,
    head: Head,
    bytes: Bytes,
) -> Started<'a> {
    let version = head.version;
    let request = HttpRequest::new(
        entry.fd(),
        version,
        0,
        head.method,
        head.uri,
        ReqHeaders::Raw(head.headers),
        bytes.slice(head.body),
        at,
    );
    let counting = Counting::start();
    entry.begin_request();
    // The answer's buffers: the script's header lines go in `text` and
    // `lines`, the head in `out` (all back to the pool in `send_now`).
    let Kit { text, lines, out } = ctx.http_bufs.take_kit();
    let lines = HeadLines::from_parts(text, lines);
    let mut answer = super::exchange::start(request, ctx, true, false, flow.clone(), Some(lines));
    // (Answered where it is: moving the response out costs a memcpy.)
    let resp = match answer {
        Answer::Now(ref mut resp) => Some(resp),
        Answer::Held(ref mut rx) => rx.value_mut(),
        Answer::Later(wait) => {
            return Ok(Box::pin(answer_later(
                io,
                ctx,
                entry,
                kill,
                (version, counting, out),
                wait,
                bytes,
            )));
        }
    };
    entry.end_request();
    Err(send_now(
        io,
        ctx,
        kill,
        (version, counting, out),
        resp,
        bytes,
    ))
}

/// A slow answer: waited for (`None` when the script closed the connection
/// meanwhile), then sent as `send_now` sends it.
async fn answer_later(
    io: &mut Counted,
    ctx: &Rc<WorkerCtx>,
    entry: &Rc<Conn>,
    kill: &Kill,
    how: (Version, Counting, Vec<u8>),
    wait: std::pin::Pin<Box<dyn std::future::Future<Output = Response<RespBody>>>>,
    bytes: Bytes,
) -> Sent {
    let mut answer = tokio::select! {
        biased;
        r = wait => Some(r),
        _ = kill.notified() => None,
    };
    entry.end_request();
    send_now(io, ctx, kill, how, answer.as_mut(), bytes)
}

/// Encodes `answer` (to the request in `bytes`, of `version`, counted by
/// `counting`) in `out` (from the pool, with the lines' buffers) and writes
/// what the socket takes at once, without waiting. (The answer is left
/// where it is, its body taken: the caller drops it.)
fn send_now(
    io: &mut Counted,
    ctx: &Rc<WorkerCtx>,
    kill: &Kill,
    (version, counting, out): (Version, Counting, Vec<u8>),
    answer: Option<&mut Response<RespBody>>,
    bytes: Bytes,
) -> Sent {
    // Back to the pool with the lines' buffers, or alone when they went
    // elsewhere.
    let mut kit = Kit {
        out,
        ..Kit::default()
    };
    let Some(resp) = answer else {
        ctx.http_bufs.give_kit(kit);
        return Sent::End(End::Closed { failed: false });
    };
    counting.end(ctx, resp);
    if kill.drops_answer() {
        // Closed by the script: nothing is written.
        ctx.http_bufs.give_kit(kit);
        return Sent::End(End::Closed { failed: false });
    }
    let Some(keep) = encode(resp, version, &mut kit.out) else {
        ctx.http_bufs.give_kit(kit);
        // hyper reads this request again (its bytes start `bytes`) and
        // writes this answer.
        super::response::materialize(resp);
        let resp = std::mem::replace(resp, Response::new(RespBody::empty()));
        let fd = kill.conn.fd();
        return Sent::End(handoff(fd, "answer", bytes, Some(Box::new(resp))));
    };
    let body = match std::mem::replace(resp.body_mut(), RespBody::empty()) {
        RespBody::Full(b) => b,
        RespBody::Plain { data, lines, .. } => {
            // A small body kept with the lines goes out with the head.
            put(&mut kit.out, lines.body());
            // The header lines' buffers came from the pool (`start`).
            (kit.text, kit.lines) = lines.into_parts();
            data
        }
        _ => None,
    };
    // A small body goes out with the head, in one write.
    let large = match body {
        Some(b) if b.len() > 16 * 1024 => Some(b),
        Some(b) => {
            put(&mut kit.out, &b);
            None
        }
        None => None,
    };
    match io.try_write_now(&kit.out) {
        Ok(n) if n == kit.out.len() && large.is_none() => {
            ctx.http_bufs.give_kit(kit);
            Sent::Done { keep }
        }
        Ok(at) => Sent::Rest {
            kit,
            at,
            large,
            keep,
        },
        Err(_) => {
            ctx.http_bufs.give_kit(kit);
            Sent::End(End::Closed { failed: true })
        }
    }
}

/// Writes what the socket did not take at once: the rest of the head (and
/// a small body) in `kit.out`, then a large body.
async fn write_rest(
    io: &mut Counted,
    ctx: &Rc<WorkerCtx>,
    kit: Kit,
    at: usize,
    large: Option<Bytes>,
) -> std::io::Result<()> {
    let r = io.write_all(&kit.out[at..]).await;
    ctx.http_bufs.give_kit(kit);
    r?;
    if let Some(b) = large {
        io.write_all(&b).await?;
    }
    Ok(())
}

/// `rest` for hyper, because of `why` (logged at debug level).
fn handoff(fd: i64, why: &str, rest: Bytes, replay: Option<Box<Response<RespBody>>>) -> End {
    crate::rlog!(
        Debug,
        "http fast path: connection {fd} goes to hyper ({why})"
    );
    End::Handoff { rest, replay }
}

/// The read buffer after a request of `done` bytes of `bytes` (split off
/// a buffer of `room` bytes, whose room after them is `tail`). Nothing of
/// the next request read yet (the common case): `tail`, which keeps the
/// buffer shared (no allocation to free it, none to share it again for
/// the next request) and gets the whole of it back with its next
/// `reserve` once the request's values are gone. Else (bytes of the next
/// request, or a buffer grown past the pool's size) as `reuse` gives it.
fn next_buf(bytes: Bytes, done: usize, room: usize, tail: BytesMut) -> BytesMut {
    if bytes.len() == done && room <= READ_KEEP {
        drop(bytes);
        return tail;
    }
    drop(tail);
    reuse(bytes, done)
}

/// Largest read buffer `next_buf` keeps shared (the pool's limit: a larger
/// one goes through `reuse`, whole, and the pool drops it).
const READ_KEEP: usize = 8 * 1024;

/// The buffer again, without its first `done` bytes: the same memory when
/// nothing else holds it any more (the request's values are gone with the
/// request), else a copy of what is left.
fn reuse(bytes: Bytes, done: usize) -> BytesMut {
    match bytes.try_into_mut() {
        Ok(mut m) => {
            bytes::Buf::advance(&mut m, done);
            m
        }
        Err(b) => {
            let mut m = BytesMut::with_capacity(READ_CHUNK.max(b.len() - done));
            m.extend_from_slice(&b[done..]);
            m
        }
    }
}

/// The response head of `resp` in `out`, as hyper writes it with
/// `title_case_headers` (names in Title-Case, then `Content-Length`, then
/// `Date`). `Some(keep_alive)`; `None` when the answer is not plain (hyper
/// writes it: see the module comment).
fn encode(resp: &Response<RespBody>, version: Version, out: &mut Vec<u8>) -> Option<bool> {
    let status = resp.status();
    if status.is_informational()
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED
        || !resp.extensions().is_empty()
    {
        return None;
    }
    let (len, defaults, lines) = match resp.body() {
        RespBody::Full(b) => (b.as_ref().map_or(0, Bytes::len), None, None),
        RespBody::Plain {
            data,
            defaults,
            lines,
        } => (
            data.as_ref().map_or(0, Bytes::len) + lines.body().len(),
            Some(*defaults),
            Some(lines),
        ),
        _ => return None,
    };
    if status == StatusCode::OK {
        // (HTTP/1.0: ab's requests.)
        put(
            out,
            if version == Version::HTTP_11 {
                b"HTTP/1.1 200 OK\r\n"
            } else {
                b"HTTP/1.0 200 OK\r\n"
            },
        );
    } else {
        put(
            out,
            if version == Version::HTTP_11 {
                b"HTTP/1.1 "
            } else {
                b"HTTP/1.0 "
            },
        );
        put(out, status.as_str().as_bytes());
        put(out, b" ");
        put(
            out,
            status.canonical_reason().unwrap_or("<none>").as_bytes(),
        );
        put(out, b"\r\n");
    }
    let mut keep = None;
    let mut wrote_date = false;
    // (A `Plain` answer's map is empty: its headers are its `lines`.)
    for (name, value) in resp.headers() {
        let value = value.as_bytes();
        if *name == header::CONNECTION {
            // One value, one token: anything else is hyper's to merge.
            if keep.is_some() {
                return None;
            }
            let v = value;
            keep = Some(if v.eq_ignore_ascii_case(b"keep-alive") {
                true
            } else if v.eq_ignore_ascii_case(b"close") {
                false
            } else {
                return None;
            });
        } else if *name == header::CONTENT_LENGTH || *name == header::TRANSFER_ENCODING {
            return None;
        } else if *name == header::DATE {
            wrote_date = true;
        }
        title_case_into(out, name.as_str().as_bytes());
        put(out, b": ");
        put(out, value);
        put(out, b"\r\n");
    }
    if let Some(l) = lines {
        // (In Title-Case already; the same checks, by name id.)
        l.write_head(out, &mut keep, &mut wrote_date)?;
    }
    if let Some(set) = defaults {
        // Where `build` would have appended them: after the script's.
        super::response::default_lines(out, set);
        if set & super::response::SET_CONNECTION == 0 {
            keep = Some(true);
        }
        wrote_date |= set & super::response::SET_DATE == 0;
    }
    // hyper adds `Connection: keep-alive` itself where it is missing.
    let keep = keep?;
    put(out, b"Content-Length: ");
    put(out, itoa(len, &mut [0u8; 20]));
    if !wrote_date {
        put(out, b"\r\nDate: ");
        super::response::date(out);
    }
    put(out, b"\r\n\r\n");
    Some(keep)
}

/// `n` in decimal, in `buf`.
fn itoa(mut n: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_tokens() {
        assert_eq!(parse_length(b"0"), Some(0));
        assert_eq!(parse_length(b"1234"), Some(1234));
        assert_eq!(parse_length(b""), None);
        assert_eq!(parse_length(b"+1"), None);
        assert_eq!(parse_length(b"1 "), None);
        assert!(has_token(b"Keep-Alive", b"keep-alive"));
        assert!(eq_lower(b"Keep-Alive", b"keep-alive"));
        assert!(eq_lower(b"HOST", b"host"));
        assert!(!eq_lower(b"hosts", b"host"));
        assert!(!eq_lower(b"keep alive", b"keep-alive"));
        assert!(!eq_lower(b"Hist", b"host"));
        assert!(eq_lower(b"Transfer-Encoding", b"transfer-encoding"));
        assert!(!eq_lower(b"Transfer-Encodinh", b"transfer-encoding"));
        assert!(!eq_lower(b"Uransfer-Encoding", b"transfer-encoding"));
        assert!(!eq_lower(b"Transfer-Encodin", b"transfer-encoding"));
        assert!(eq_lower(b"CONTENT-LENGTH", b"content-length"));
        assert!(eq_lower(b"eXpect", b"expect"));
        assert!(!eq_lower(b"expecu", b"expect"));
        assert!(eq_lower(b"TE", b"te"));
        assert!(!eq_lower(b"TF", b"te"));
        for n in 1..=20 {
            let lower = vec![b'k'; n];
            let mut a = lower.to_ascii_uppercase();
            assert!(eq_lower(&a, &lower));
            for i in 0..n {
                a[i] = b'l';
                assert!(!eq_lower(&a, &lower), "{n} {i}");
                a[i] = b'K';
            }
        }
        assert!(has_token(b"foo, close", b"close"));
        assert!(!has_token(b"closed", b"close"));
        assert_eq!(itoa(0, &mut [0; 20]), b"0");
        assert_eq!(itoa(1_234_567, &mut [0; 20]), b"1234567");
    }

    #[test]
    fn root_target_is_parsed_slash() {
        let parsed = Uri::from_static("/");
        let root = Uri::default();
        assert_eq!(root, parsed);
        assert_eq!(root.path(), parsed.path());
        assert_eq!(root.query(), parsed.query());
        assert_eq!(root.to_string(), "/");
        assert_eq!(root.path_and_query(), parsed.path_and_query());
    }

    #[test]
    fn date_is_an_http_date() {
        let mut out = Vec::new();
        super::super::response::date(&mut out);
        super::super::response::date(&mut out);
        assert_eq!(out.len(), 58);
        assert!(out.ends_with(b" GMT"));
    }
}
