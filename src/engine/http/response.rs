//! `Responder`: the engine side of `Swoole\Http\Response`.
//!
//! The connection waits on a one-value slot (`answer`, kept in the
//! responders' shared state) for the response head. `end()`, `write()` or
//! `sendfile()` send it; if the last `Responder` is dropped without any of
//! them (an exception, a forgotten `end()`), the slot closes and the
//! connection answers 500 itself, so a client always gets an answer.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use crate::engine::net::outflow::Outflow;

use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::{Response, StatusCode};
use tokio::sync::mpsc;

use super::answer;
use super::body::{name_id, put, HeadLines, RespBody};
use super::mime;
use crate::engine::worker::bufpool::HeadLine;

/// Why a response call was refused; the PHP layer turns it into a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RespError {
    /// The response was ended, or the client is gone.
    Unavailable,
    /// A status code outside 100..=999 or a header with CR/LF in it.
    Invalid(String),
    /// A file for `sendfile()` could not be opened or read.
    File(String),
    /// `sendfile()` of something that is not a regular file (a directory).
    NotRegularFile(String),
    /// `write()` to a connection whose output buffer is full
    /// (`socket_buffer_size`): wait for `Responder::outflow()` or fail.
    Overflow,
}

// The default header values, checked at compile time (`from_static` in a
// non-const context checks every byte again on each response).
const SERVER_VALUE: HeaderValue = HeaderValue::from_static("swoole-http-server");
const TEXT_HTML: HeaderValue = HeaderValue::from_static("text/html");
const KEEP_ALIVE: HeaderValue = HeaderValue::from_static("keep-alive");
const CLOSE: HeaderValue = HeaderValue::from_static("close");

/// What `HeaderValue::from_bytes` takes: visible ASCII, obs-text, SP, HTAB.
/// (Eight bytes at a time while they are all printable ASCII.)
fn valid_value(v: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = v.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w);
        // A byte below 0x20, a 0x7F, or a high bit: byte by byte.
        let low = x.wrapping_sub(ONES * 0x20) & !x;
        let del = (x ^ (ONES * 0x7F)).wrapping_sub(ONES) & !(x ^ (ONES * 0x7F));
        if (low | del | x) & HIGH != 0 && !c.iter().all(|&b| valid_byte(b)) {
            return false;
        }
    }
    // The last bytes as a word too, filled up with plain bytes.
    let rest = chunks.remainder();
    if rest.is_empty() {
        return true;
    }
    let mut x = ONES * u64::from(b'a');
    for (i, &b) in rest.iter().enumerate() {
        x = (x & !(0xff << (8 * i))) | (u64::from(b) << (8 * i));
    }
    let low = x.wrapping_sub(ONES * 0x20) & !x;
    let del = (x ^ (ONES * 0x7F)).wrapping_sub(ONES) & !(x ^ (ONES * 0x7F));
    (low | del | x) & HIGH == 0 || rest.iter().all(|&b| valid_byte(b))
}

fn valid_byte(b: u8) -> bool {
    (b >= 32 && b != 127) || b == b'\t'
}

/// A byte of an RFC 9110 token (what `http` takes in a header name).
fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

/// A header name Swoole sends but `http` cannot hold: visible ASCII
/// without `:` (so no line break, space or separator that could end the
/// name early), some of it outside the token set (`"`, `(`, `/`, `{`, ...).
fn is_odd_name(name: &[u8]) -> bool {
    !name.is_empty()
        && name
            .iter()
            .all(|&c| (0x21..=0x7e).contains(&c) && c != b':')
        && !name.iter().all(|&c| is_tchar(c))
}

/// What replaces the bytes of an odd name outside the token set in its
/// stand-in, tried in this order: digits first (Swoole's own tests note
/// that it does not take numeric names), never `-` (it changes the case
/// hyper writes).
const STAND_IN_BYTES: &[u8] = b"0123456789~!#$%&'*+.^_`|";

/// Candidate `k` of the stand-in of odd name `name`: its token bytes in
/// lower case, each other byte one of `STAND_IN_BYTES` (`k` counted in
/// that base over those places, the last one first); `None` past the last.
fn stand_in(name: &[u8], mut k: usize) -> Option<Vec<u8>> {
    let mut out: Vec<u8> = name.iter().map(|c| c.to_ascii_lowercase()).collect();
    for c in out.iter_mut().rev().filter(|c| !is_tchar(**c)) {
        *c = STAND_IN_BYTES[k % STAND_IN_BYTES.len()];
        k /= STAND_IN_BYTES.len();
    }
    (k == 0).then_some(out)
}

/// `name` as hyper writes it: lower case, with the first letter and each
/// one after a `-` upper case.
pub fn title_case(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len() + 8);
    super::body::title_case_into(&mut out, name);
    out
}

/// Content coding chosen from the request's `Accept-Encoding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Brotli,
    Gzip,
    Deflate,
}

impl Coding {
    /// The coding the client weighs highest (q-values; `*` stands for any
    /// coding not named); on a tie br, then gzip, then deflate, Swoole's
    /// order of preference. None when nothing acceptable is offered.
    pub fn from_accept(accept: &[u8]) -> Option<Coding> {
        let s = String::from_utf8_lossy(accept).to_ascii_lowercase();
        let mut q = [None::<f32>; 3];
        let mut star = None::<f32>;
        for item in s.split(',') {
            let mut it = item.trim().split(';');
            let name = it.next().unwrap_or("").trim();
            let mut weight = 1.0f32;
            for p in it {
                if let Some(v) = p.trim().strip_prefix("q=") {
                    weight = v.trim().parse().unwrap_or(0.0);
                }
            }
            let slot = match name {
                "br" => 0,
                "gzip" | "x-gzip" => 1,
                "deflate" => 2,
                "*" => {
                    star = Some(weight);
                    continue;
                }
                _ => continue,
            };
            q[slot] = Some(weight);
        }
        let mut best: Option<(f32, usize)> = None;
        for (i, w) in q.iter().enumerate() {
            let w = w.or(star).unwrap_or(0.0);
            if w > 0.0 && best.is_none_or(|(b, _)| w > b) {
                best = Some((w, i));
            }
        }
        best.map(|(_, i)| [Coding::Brotli, Coding::Gzip, Coding::Deflate][i])
    }

    pub fn name(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
            Coding::Deflate => "deflate",
        }
    }
}

/// Compresses `data` with `coding` at `level` (1..9 for zlib, up to 11 for brotli).
pub fn compress(coding: Coding, level: u32, data: &[u8]) -> std::io::Result<Vec<u8>> {
    match coding {
        Coding::Brotli => {
            let mut out = Vec::with_capacity(data.len() / 2);
            let params = brotli::enc::BrotliEncoderParams {
                quality: level.min(11) as i32,
                size_hint: data.len(),
                ..Default::default()
            };
            brotli::BrotliCompress(&mut &data[..], &mut out, &params)?;
            Ok(out)
        }
        Coding::Gzip => {
            let level = flate2::Compression::new(level.clamp(1, 9));
            let mut e = flate2::write::GzEncoder::new(Vec::with_capacity(data.len() / 2), level);
            e.write_all(data).and_then(|_| e.finish())
        }
        Coding::Deflate => {
            let level = flate2::Compression::new(level.clamp(1, 9));
            let mut e = flate2::write::ZlibEncoder::new(Vec::with_capacity(data.len() / 2), level);
            e.write_all(data).and_then(|_| e.finish())
        }
    }
}

/// What the response needs to know about its request and the server settings.
#[derive(Debug, Clone)]
pub struct RespContext {
    pub is_head: bool,
    pub keep_alive: bool,
    pub coding: Option<Coding>,
    /// `(level, min_length)` when `http_compression` is on.
    pub compression: Option<(u32, usize)>,
    /// `http_compression_types` (None: any content type).
    pub compression_types: Option<std::sync::Arc<[String]>>,
    /// The connection's output bound, for `write()` (None: unbounded).
    pub outflow: Option<Rc<Outflow>>,
    /// The HTTP/1 fast path writes the head: `end()` leaves the default
    /// headers out of the map (`RespBody::Plain`).
    pub head_writer: bool,
}

impl RespContext {
    /// Nothing negotiated: a plain GET, no compression, no output bound
    /// (the WebSocket handshake's answer, a detached or created response).
    pub fn plain(keep_alive: bool) -> Self {
        RespContext {
            is_head: false,
            keep_alive,
            coding: None,
            compression: None,
            compression_types: None,
            outflow: None,
            head_writer: false,
        }
    }
}

/// Bits of `State::defaults_set`: which default headers the script set
/// itself, so `build` adds the others without looking them up.
pub const SET_SERVER: u8 = 1;
pub const SET_CONTENT_TYPE: u8 = 2;
pub const SET_CONNECTION: u8 = 4;
/// A header name must be sent as spelled (`exact`).
const SET_EXACT: u8 = 8;
pub const SET_DATE: u8 = 16;
/// The script set a cookie: `build` moves them after its other headers.
const SET_COOKIES: u8 = 32;
/// The script set one of the headers Swoole manages (`is_managed`) to an
/// empty value: as Swoole, that only keeps its default out; `build`
/// drops the empty line.
const SET_EMPTY: u8 = 64;

/// The headers Swoole 6.2.2 treats apart when it writes the head: set
/// empty, they are not sent (and their default is not either). (Every
/// name with an id of its own but `Set-Cookie`.)
fn is_managed(id: u8) -> bool {
    id > name_id::ODD && id != name_id::SET_COOKIE
}

/// Header names a script asked to be sent exactly as spelled
/// (`header($k, $v, false)`), carried to the connection in the response's
/// extensions: hyper writes every name in Title-Case, and the connection's
/// socket wrapper puts these spellings back into the head bytes.
/// The second list holds the names `http` cannot carry (`is_odd_name`):
/// (the stand-in the map holds, the name to write in its place).
#[derive(Clone, Debug, Default)]
pub struct ExactNames(pub Vec<Box<[u8]>>, pub Vec<(HeaderName, Box<[u8]>)>);

impl ExactNames {
    /// Takes the stand-ins out of `h` (HTTP/2, where the head is not bytes
    /// the connection can respell: Swoole's HTTP/2 sends no such name).
    pub fn drop_stand_ins(&self, h: &mut HeaderMap) {
        for (n, _) in &self.1 {
            h.remove(n);
        }
    }
}

struct State {
    /// (Checked by `status()`: `build` cannot fail.)
    status: StatusCode,
    /// `SET_*` bits; a bit once set stays true (a header `remove_header`
    /// took out still keeps its default out, as in Swoole).
    defaults_set: u8,
    ended: bool,
    /// Built as the script sets them, then moved whole into the response.
    headers: HeadLines,
    /// The head may still be sent (`Shared::slot`): not sent, not
    /// failed.
    head_open: bool,
    chunk_tx: Option<mpsc::UnboundedSender<Bytes>>,
    ctx: RespContext,
    /// What few responses have (a reason phrase, names sent as spelled,
    /// trailers): boxed, so that the state every response allocates and
    /// fills stays small.
    rare: Option<Box<Rare>>,
}

#[derive(Default)]
struct Rare {
    reason: Option<String>,
    /// Names to send as spelled (`SET_EXACT`), as `exact_name` got them.
    exact: Vec<Box<[u8]>>,
    /// `trailer()`s, sent after the body by `end()`.
    trailers: Option<HeaderMap>,
}

/// [`Responder::snapshot`]: headers (every value of a name), cookie
/// lines, trailers.
#[derive(Debug, Default)]
pub struct Snapshot {
    pub headers: Vec<(Vec<u8>, Vec<Vec<u8>>)>,
    pub cookies: Vec<Vec<u8>>,
    pub trailers: Vec<(Vec<u8>, Vec<u8>)>,
}

/// What a response's `Responder`s share with its receiver: the state, and
/// the slot the head goes through (one allocation per response).
pub struct Shared {
    slot: answer::Slot<Response<RespBody>>,
    state: RefCell<State>,
}

impl answer::Holder<Response<RespBody>> for Shared {
    fn slot(&self) -> &answer::Slot<Response<RespBody>> {
        &self.slot
    }
}

/// Where the connection gets the response head: the value, or `Closed`
/// once every `Responder` is gone without sending it.
pub type HeadReceiver = answer::Receiver<Response<RespBody>, Shared>;

#[derive(Clone)]
pub struct Responder(Rc<Shared>);

impl Drop for Responder {
    /// The last `Responder` (the receiver may hold one more reference)
    /// ends a stream and closes the slot: see `Shared::responders_gone`.
    fn drop(&mut self) {
        let receiver = usize::from(self.0.slot.has_receiver());
        if Rc::strong_count(&self.0) == 1 + receiver {
            self.0.responders_gone();
        }
    }
}

impl Shared {
    /// A response streamed with `write()` and left without `end()` by a
    /// handler that returned normally is ended, as Swoole ends it when the
    /// response object is freed (after a failure `fail()` has already
    /// dropped the sender without the marker, which cuts the stream); a
    /// head never sent is not coming: the receiver gets `Closed` (the
    /// connection answers 500).
    fn responders_gone(&self) {
        let Ok(mut s) = self.state.try_borrow_mut() else {
            return;
        };
        if let Some(tx) = s.chunk_tx.take() {
            let _ = tx.send(Bytes::new());
        }
        if s.head_open {
            s.head_open = false;
            self.slot.close();
        }
    }
}

impl Responder {
    pub fn new(ctx: RespContext) -> (Responder, HeadReceiver) {
        Self::with_lines(ctx, HeadLines::default())
    }

    /// `new`, the script's headers to go in `lines` (pooled buffers).
    pub fn with_lines(ctx: RespContext, lines: HeadLines) -> (Responder, HeadReceiver) {
        // Allocated first, then written in place (`Rc::new` builds the
        // value on the stack and copies it in).
        let mut shared = Rc::<Shared>::new_uninit();
        let Some(place) = Rc::get_mut(&mut shared) else {
            // (A new `Rc` has no other reference.)
            std::process::abort();
        };
        place.write(Shared {
            slot: answer::Slot::new(),
            state: RefCell::new(State {
                status: StatusCode::OK,
                defaults_set: 0,
                ended: false,
                headers: lines,
                head_open: true,
                chunk_tx: None,
                ctx,
                rare: None,
            }),
        });
        // SAFETY: written just above.
        let shared = unsafe { shared.assume_init() };
        (Responder(shared.clone()), answer::Receiver::new(shared))
    }

    /// False once ended, or once the client went away.
    pub fn is_writable(&self) -> bool {
        let s = self.0.state.borrow();
        if s.ended {
            return false;
        }
        match (s.head_open, &s.chunk_tx) {
            (true, _) => self.0.slot.has_receiver(),
            (false, Some(tx)) => !tx.is_closed(),
            (false, None) => false,
        }
    }

    pub fn status(&self, code: i64, reason: Option<&str>) -> Result<(), RespError> {
        let mut s = self.0.state.borrow_mut();
        s.open()?;
        if !(100..=999).contains(&code) {
            return Err(RespError::Invalid(format!("invalid status code {code}")));
        }
        s.status = StatusCode::from_u16(code as u16)
            .map_err(|_| RespError::Invalid(format!("invalid status code {code}")))?;
        match reason.filter(|r| !r.is_empty()) {
            Some(r) => s.rare().reason = Some(r.to_string()),
            None => {
                if let Some(rare) = &mut s.rare {
                    rare.reason = None;
                }
            }
        }
        Ok(())
    }

    /// Adds (or with `replace`, replaces) a header.
    pub fn header(&self, name: &str, value: &[u8], replace: bool) -> Result<(), RespError> {
        self.header_bytes(name.as_bytes(), value, replace)
    }

    /// `header` with the name as bytes: a valid name is ASCII, so a caller
    /// holding bytes need not check UTF-8 first.
    pub fn header_bytes(&self, name: &[u8], value: &[u8], replace: bool) -> Result<(), RespError> {
        let mut s = self.0.state.borrow_mut();
        s.open()?;
        let Some(n) = s.headers.name(name) else {
            return Err(invalid_name(name));
        };
        // As Swoole: trailing white space (a line break too) is dropped.
        let mut value = value;
        while let [rest @ .., last] = value {
            if !last.is_ascii_whitespace() {
                break;
            }
            value = rest;
        }
        if !valid_value(value) {
            s.headers.drop_name(n);
            let name = String::from_utf8_lossy(name);
            return Err(RespError::Invalid(format!(
                "invalid value for header '{name}'"
            )));
        }
        s.note_name(n.id, value.is_empty());
        s.headers.put_line(n, value, replace);
        Ok(())
    }

    /// `header($name, null)`: the header goes (every value of it); as in
    /// Swoole a default of that name is not sent either.
    pub fn remove_header(&self, name: &[u8]) -> Result<(), RespError> {
        let mut s = self.0.state.borrow_mut();
        s.open()?;
        let Some(n) = s.headers.name(name) else {
            return Err(invalid_name(name));
        };
        s.note_name(n.id, false);
        s.headers.remove_name(n);
        Ok(())
    }

    /// Sends header name `name` as spelled instead of in Title-Case (a
    /// header of that name must be set as well; case-insensitive). For a
    /// name `http` cannot hold (`is_odd_name`) the last spelling counts,
    /// for any other the first.
    pub fn exact_name(&self, name: &[u8]) {
        let mut s = self.0.state.borrow_mut();
        if !name.is_empty() && (title_case(name) != name || is_odd_name(name)) {
            s.defaults_set |= SET_EXACT;
            s.rare().exact.push(name.into());
        }
    }

    /// What the script set so far, as Swoole's `$response->header`,
    /// `->cookie` and `->trailer` show it: header names as they will be
    /// sent (Title-Case, or as spelled; trailer names in lower case),
    /// `Set-Cookie` lines apart, every
    /// value of a name in order. Empty once the head is gone.
    pub fn snapshot(&self) -> Snapshot {
        let s = self.0.state.borrow();
        let exact = s.rare.as_ref().map_or(&[][..], |r| &r.exact[..]);
        let spell = |l: &HeadLine| -> Vec<u8> {
            let b = s.headers.name_of(l);
            let same = |e: &&[u8]| e.eq_ignore_ascii_case(b);
            let mut all = exact.iter().map(|e| &e[..]);
            let e = if l.id == name_id::ODD {
                all.rfind(same)
            } else {
                all.find(same)
            };
            e.map_or_else(|| b.to_vec(), |e| e.to_vec())
        };
        let mut snap = Snapshot::default();
        let mut prev = None;
        for l in &s.headers.lines {
            let v = s.headers.value_of(l);
            if l.id == name_id::SET_COOKIE {
                snap.cookies.push(v.to_vec());
                continue;
            }
            // (The values of a name are together.)
            let name = s.headers.name_of(l);
            match snap.headers.last_mut() {
                Some((_, values)) if prev == Some(name) => values.push(v.to_vec()),
                _ => snap.headers.push((spell(l), vec![v.to_vec()])),
            }
            prev = Some(name);
        }
        if let Some(t) = s.rare.as_ref().and_then(|r| r.trailers.as_ref()) {
            for (name, v) in t.iter() {
                // (Swoole keeps trailer names in lower case.)
                snap.trailers
                    .push((name.as_str().as_bytes().to_vec(), v.as_bytes().to_vec()));
            }
        }
        snap
    }

    /// Streams a chunk; the first one sends the head with chunked encoding.
    pub fn write(&self, data: Bytes) -> Result<(), RespError> {
        let mut s = self.0.state.borrow_mut();
        if s.ended {
            return Err(RespError::Unavailable);
        }
        if let Some(f) = &s.ctx.outflow {
            if !f.has_room() {
                return Err(if f.is_closed() {
                    RespError::Unavailable
                } else {
                    RespError::Overflow
                });
            }
        }
        if s.chunk_tx.is_none() {
            let (tx, rx) = mpsc::unbounded_channel();
            let body = RespBody::Chunks {
                rx,
                flow: s.ctx.outflow.clone(),
                done: false,
                peeked: None,
            };
            let resp = s.build(body, None);
            s.send_head(&self.0.slot, resp)?;
            s.chunk_tx = Some(tx);
        }
        if data.is_empty() {
            return Ok(());
        }
        let tx = s.chunk_tx.as_ref().ok_or(RespError::Unavailable)?;
        let n = data.len();
        tx.send(data).map_err(|_| RespError::Unavailable)?;
        if let Some(f) = &s.ctx.outflow {
            f.add(n);
        }
        Ok(())
    }

    /// The connection's output bound, to wait on after `Overflow`.
    pub fn outflow(&self) -> Option<Rc<Outflow>> {
        self.0.state.borrow().ctx.outflow.clone()
    }

    /// Adds a trailer (name lower-cased), sent after the body by `end()`.
    pub fn trailer(&self, name: &str, value: &[u8]) -> Result<(), RespError> {
        let mut s = self.0.state.borrow_mut();
        if s.ended {
            return Err(RespError::Unavailable);
        }
        let n = HeaderName::from_bytes(name.to_ascii_lowercase().as_bytes())
            .map_err(|_| RespError::Invalid(format!("invalid trailer name '{name}'")))?;
        let v = HeaderValue::from_bytes(value)
            .map_err(|_| RespError::Invalid(format!("invalid value for trailer '{name}'")))?;
        s.rare()
            .trailers
            .get_or_insert_with(HeaderMap::new)
            .insert(n, v);
        Ok(())
    }

    /// `end(data)` with the bytes of `data` (the script's string): a small
    /// body of a plain answer on the fast path is kept in the head lines'
    /// buffer (pooled) instead of a buffer of its own; anything else as `end`.
    pub fn end_slice(&self, data: &[u8]) -> Result<(), RespError> {
        let mut s = self.0.state.borrow_mut();
        // What `end` checks before it makes a `Plain` body: not ended, no
        // stream from `write()`, no trailers, the fast path's head writer
        // on a connection that stays open, and no compression (with a
        // coding `maybe_compress` may compress).
        let plain = !s.ended
            && s.chunk_tx.is_none()
            && s.rare.as_ref().is_none_or(|r| r.trailers.is_none())
            && s.ctx.head_writer
            && s.ctx.keep_alive
            && (s.ctx.compression.is_none() || s.ctx.coding.is_none())
            && data.len() <= INLINE_BODY_MAX;
        if !plain {
            drop(s);
            return self.end(Bytes::copy_from_slice(data));
        }
        let body = RespBody::Plain {
            data: None,
            defaults: s.defaults_set,
            lines: HeadLines::default(),
        };
        let mut resp = s.build(body, None);
        if let RespBody::Plain { lines, .. } = resp.body_mut() {
            // (After the values `build` moved in.)
            if !data.is_empty() {
                lines.put_body(data);
            }
        }
        s.end_with(&self.0.slot, resp)
    }

    /// Ends the response, with a last piece of body.
    pub fn end(&self, data: Bytes) -> Result<(), RespError> {
        let mut s = self.0.state.borrow_mut();
        if s.ended {
            return Err(RespError::Unavailable);
        }
        if let Some(tx) = s.chunk_tx.take() {
            s.ended = true;
            if !data.is_empty() {
                let n = data.len();
                tx.send(data).map_err(|_| RespError::Unavailable)?;
                if let Some(f) = &s.ctx.outflow {
                    f.add(n);
                }
            }
            s.mark_ended();
            // The end marker (see `RespBody::Chunks`).
            return tx.send(Bytes::new()).map_err(|_| RespError::Unavailable);
        }
        let (body, coding) = s.maybe_compress(data);
        let body = match s.rare.as_mut().and_then(|r| r.trailers.take()) {
            Some(t) => RespBody::Trailed {
                data: (!body.is_empty()).then_some(body),
                trailers: Some(Box::new(t)),
            },
            // The fast path writes the defaults after the script's headers,
            // where `build` would append them: only where nothing follows
            // them in the map (no coding) and the connection stays open.
            None if s.ctx.head_writer && coding.is_none() && s.ctx.keep_alive => RespBody::Plain {
                data: (!body.is_empty()).then_some(body),
                defaults: s.defaults_set,
                lines: HeadLines::default(),
            },
            None => RespBody::full(body),
        };
        let resp = s.build(body, coding);
        s.end_with(&self.0.slot, resp)
    }

    /// Sends `length` bytes (0: to the end) of a file from `offset`.
    pub fn sendfile(
        &self,
        path: &std::path::Path,
        offset: u64,
        length: u64,
    ) -> Result<(), RespError> {
        let mut s = self.0.state.borrow_mut();
        s.open()?;
        let meta = std::fs::metadata(path)
            .map_err(|e| RespError::File(format!("stat({}) failed: {e}", path.display())))?;
        if !meta.is_file() {
            // Swoole's words (and its SW_ERROR_SERVER_IS_NOT_REGULAR_FILE).
            return Err(RespError::NotRegularFile(format!(
                "parameter $file[{}] given is not a regular file",
                path.display()
            )));
        }
        let file = std::fs::File::open(path)
            .map_err(|e| RespError::File(format!("open({}) failed: {e}", path.display())))?;
        let size = meta.len();
        if offset > size || (length > 0 && offset + length > size) {
            return Err(RespError::File(format!(
                "offset={offset}, length={length} is out of the file size {size}"
            )));
        }
        let len = if length == 0 { size - offset } else { length };
        if s.defaults_set & SET_CONTENT_TYPE == 0 {
            s.headers
                .insert(b"Content-Type", mime::for_path(path).as_bytes());
            s.defaults_set |= SET_CONTENT_TYPE;
        }
        let body = RespBody::file(file, offset, len)
            .map_err(|e| RespError::File(format!("seek failed: {e}")))?;
        let resp = s.build(body, None);
        s.end_with(&self.0.slot, resp)
    }

    /// Answers `code` with an empty body if nothing was sent yet; cuts a
    /// chunked stream short otherwise. Used after a PHP failure.
    pub fn fail(&self, code: u16) {
        let mut s = self.0.state.borrow_mut();
        if s.ended {
            return;
        }
        s.ended = true;
        s.chunk_tx = None;
        if s.head_open {
            let _ = s.send_head(&self.0.slot, simple(code, "", false));
        }
    }
}

impl State {
    /// Whether headers may still be set.
    fn open(&self) -> Result<(), RespError> {
        if self.ended || !self.head_open {
            return Err(RespError::Unavailable);
        }
        Ok(())
    }

    fn rare(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// Remembers that the script set (or took out) header `id`: one of the
    /// headers `build` defaults, a cookie, an odd name; a managed one set
    /// `empty` keeps its line out.
    fn note_name(&mut self, id: u8, empty: bool) {
        self.defaults_set |= match id {
            name_id::SERVER => SET_SERVER,
            name_id::CONTENT_TYPE => SET_CONTENT_TYPE,
            name_id::CONNECTION => SET_CONNECTION,
            name_id::DATE => SET_DATE,
            name_id::SET_COOKIE => SET_COOKIES,
            // A name Swoole sends as it is (`"`, `x(`, ...): through hyper,
            // as a stand-in (`stand_ins`) the connection respells.
            name_id::ODD => SET_EXACT,
            _ => 0,
        };
        if empty && is_managed(id) {
            self.defaults_set |= SET_EMPTY;
        }
    }

    /// Tells the connection the script ended its response (a `close()`
    /// after this still sends it).
    fn mark_ended(&self) {
        if let Some(f) = &self.ctx.outflow {
            f.set_ended(true);
        }
    }

    /// Ends the response with `resp` as its head and whole body (`end`,
    /// `end_slice`, `sendfile`).
    fn end_with(
        &mut self,
        slot: &answer::Slot<Response<RespBody>>,
        resp: Response<RespBody>,
    ) -> Result<(), RespError> {
        self.ended = true;
        self.mark_ended();
        self.send_head(slot, resp)
    }

    /// Hands `resp` (the head, with the whole body or a stream's receiving
    /// end) to the exchange, once.
    fn send_head(
        &mut self,
        slot: &answer::Slot<Response<RespBody>>,
        resp: Response<RespBody>,
    ) -> Result<(), RespError> {
        if !self.head_open {
            return Err(RespError::Unavailable);
        }
        self.head_open = false;
        slot.send(resp).map_err(|_| RespError::Unavailable)
    }

    fn maybe_compress(&self, data: Bytes) -> (Bytes, Option<Coding>) {
        let (Some((level, min_len)), Some(coding)) = (self.ctx.compression, self.ctx.coding) else {
            return (data, None);
        };
        if data.len() < min_len || self.headers.has(name_id::CONTENT_ENCODING) {
            return (data, None);
        }
        if let Some(types) = &self.ctx.compression_types {
            let ct = self
                .headers
                .get(name_id::CONTENT_TYPE)
                // (As `HeaderValue::to_str`: visible ASCII only.)
                .filter(|v| v.iter().all(|&b| b == b'\t' || (32..127).contains(&b)))
                .and_then(|v| std::str::from_utf8(v).ok())
                .unwrap_or("text/html")
                .to_ascii_lowercase();
            let media = ct.split(';').next().unwrap_or("").trim();
            if !types.iter().any(|t| *t == ct || t == media) {
                return (data, None);
            }
        }
        let out = compress(coding, level, &data);
        match out {
            Ok(v) => (Bytes::from(v), Some(coding)),
            Err(_) => (data, None),
        }
    }

    fn build(&mut self, body: RespBody, coding: Option<Coding>) -> Response<RespBody> {
        let mut resp = Response::new(body);
        *resp.status_mut() = self.status;
        if let Some(reason) = self.rare.as_mut().and_then(|r| r.reason.take()) {
            if let Ok(r) = hyper::ext::ReasonPhrase::try_from(reason.into_bytes()) {
                resp.extensions_mut().insert(r);
            }
        }
        let mut lines = std::mem::take(&mut self.headers);
        if self.defaults_set & SET_EMPTY != 0 {
            lines
                .lines
                .retain(|l| !(l.value.0 == l.value.1 && is_managed(l.id)));
        }
        if self.defaults_set & SET_COOKIES != 0 {
            // Swoole writes the cookies after every other header the
            // script set (the lines keep them where the first one went).
            let (cookies, mut rest): (Vec<_>, Vec<_>) = std::mem::take(&mut lines.lines)
                .into_iter()
                .partition(|l| l.id == name_id::SET_COOKIE);
            rest.extend(cookies);
            lines.lines = rest;
        }
        if self.defaults_set & SET_EXACT != 0 {
            let exact = self
                .rare
                .as_mut()
                .map(|r| std::mem::take(&mut r.exact))
                .unwrap_or_default();
            let odd = stand_ins(&mut lines, &exact);
            resp.extensions_mut().insert(ExactNames(exact, odd));
        }
        if let RespBody::Plain { lines: l, .. } = resp.body_mut() {
            // The fast path writes them, and the defaults (`materialize`
            // when it does not).
            *l = lines;
            return resp;
        }
        // (Room for the defaults too: no rehash when they go in.)
        resp.headers_mut().reserve(lines.lines.len() + 6);
        lines.into_map(resp.headers_mut());
        append_defaults(resp.headers_mut(), self.defaults_set, self.ctx.keep_alive);
        let h = resp.headers_mut();
        if let Some(c) = coding {
            h.insert(
                http::header::CONTENT_ENCODING,
                HeaderValue::from_static(c.name()),
            );
            h.append(
                http::header::VARY,
                HeaderValue::from_static("Accept-Encoding"),
            );
        }
        resp
    }
}

/// Gives the lines of each odd name (`is_odd_name`, which `http` cannot
/// hold) a stand-in no other line has (`stand_in`), in their places; the
/// stand-ins and the spellings to write in their place (Title-Case, or the
/// last one `exact_name` got). A name left without a stand-in (every
/// candidate taken) is not sent.
fn stand_ins(lines: &mut HeadLines, exact: &[Box<[u8]>]) -> Vec<(HeaderName, Box<[u8]>)> {
    let mut odd = Vec::new();
    while let Some(i) = lines.lines.iter().position(|l| l.id == name_id::ODD) {
        let title = lines.name_of(&lines.lines[i]).to_vec();
        let spelling = exact
            .iter()
            .rfind(|e| e.eq_ignore_ascii_case(&title))
            .cloned()
            .unwrap_or_else(|| title.clone().into());
        let taken = |c: &[u8]| {
            lines
                .lines
                .iter()
                .any(|l| l.id != name_id::ODD && lines.name_of(l).eq_ignore_ascii_case(c))
        };
        let free = (0..4096)
            .map_while(|k| stand_in(&title, k))
            .filter(|c| !taken(c))
            .find_map(|c| HeaderName::from_bytes(&c).ok().map(|n| (c, n)));
        match free {
            Some((c, n)) => {
                lines.rename_line(i, &c);
                odd.push((n, spelling));
            }
            None => {
                let name = lines.lines[i].name;
                let name = lines.slice(name).to_vec();
                let mut keep = Vec::with_capacity(lines.lines.len());
                for l in &lines.lines {
                    if lines.name_of(l) != name {
                        keep.push(*l);
                    }
                }
                lines.lines = keep;
            }
        }
    }
    odd
}

/// Swoole's warning for a header name no header may have.
fn invalid_name(name: &[u8]) -> RespError {
    let name = String::from_utf8_lossy(name);
    RespError::Invalid(format!("invalid header name '{name}'"))
}

/// The default headers the script did not set (`set`: `SET_*` bits), at
/// the end of `h`, in Swoole's order (`Server`, `Date`, `Connection`,
/// `Content-Type`; hyper adds `Content-Length` after them). Appended, not
/// inserted: the bits say these names are absent, so there is nothing to
/// replace (same order, one hash each).
fn append_defaults(h: &mut HeaderMap, set: u8, keep_alive: bool) {
    if set & SET_SERVER == 0 {
        h.append(http::header::SERVER, SERVER_VALUE);
    }
    if set & SET_DATE == 0 {
        h.append(http::header::DATE, date_value());
    }
    if set & SET_CONNECTION == 0 {
        h.append(
            http::header::CONNECTION,
            if keep_alive { KEEP_ALIVE } else { CLOSE },
        );
    }
    if set & SET_CONTENT_TYPE == 0 {
        h.append(http::header::CONTENT_TYPE, TEXT_HTML);
    }
}

/// Largest body `end_slice` keeps in the head lines' buffer (the pool
/// keeps buffers of up to 8 KiB).
const INLINE_BODY_MAX: usize = 4 * 1024;

/// A `RespBody::Plain` response made ordinary: its default headers in the
/// map, its body `Full` (before anything but the fast path's head writer
/// sees it: hyper, or a change to its headers).
pub fn materialize(resp: &mut Response<RespBody>) {
    if let RespBody::Plain {
        data,
        defaults,
        lines,
    } = resp.body_mut()
    {
        let (data, defaults, mut lines) = (data.take(), *defaults, std::mem::take(lines));
        *resp.body_mut() = RespBody::Full(data.or_else(|| lines.take_body()));
        resp.headers_mut().reserve(lines.lines.len() + 6);
        lines.into_map(resp.headers_mut());
        append_defaults(resp.headers_mut(), defaults, true);
    }
}

/// The default header lines the fast path writes for a `RespBody::Plain`
/// whose script set `set` of them, as `append_defaults` would have put them
/// in the map (Title-Case, keep-alive).
pub fn default_lines(out: &mut Vec<u8>, set: u8) {
    if set & (SET_SERVER | SET_DATE | SET_CONNECTION | SET_CONTENT_TYPE) == 0 {
        // The common case, in three pieces.
        put(out, b"Server: swoole-http-server\r\nDate: ");
        date(out);
        put(
            out,
            b"\r\nConnection: keep-alive\r\nContent-Type: text/html\r\n",
        );
        return;
    }
    if set & SET_SERVER == 0 {
        put(out, b"Server: swoole-http-server\r\n");
    }
    if set & SET_DATE == 0 {
        put(out, b"Date: ");
        date(out);
        put(out, b"\r\n");
    }
    if set & SET_CONNECTION == 0 {
        put(out, b"Connection: keep-alive\r\n");
    }
    if set & SET_CONTENT_TYPE == 0 {
        put(out, b"Content-Type: text/html\r\n");
    }
}

/// The `Date` value for now, formatted once a second (as hyper caches it).
/// The second is read from the coarse clock (a header of one-second
/// resolution needs no more; the precise one costs several times more).
pub fn date(out: &mut Vec<u8>) {
    use std::time::{Duration, UNIX_EPOCH};
    // (second, its HTTP date); a worker's connections share one thread.
    static CACHE: super::body::Flagged<(u64, [u8; 29])> = super::body::Flagged::new((0, [0u8; 29]));
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-parameter for the call.
    let secs = if unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) } == 0 {
        ts.tv_sec.max(0) as u64
    } else {
        std::time::SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_secs()
    };
    let fmt = || httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(secs));
    let cached = CACHE.with(|c| {
        if c.0 != secs {
            let s = fmt();
            if s.len() != 29 {
                return false;
            }
            c.1.copy_from_slice(s.as_bytes());
            c.0 = secs;
        }
        put(out, &c.1);
        true
    });
    if cached != Some(true) {
        put(out, fmt().as_bytes());
    }
}

/// The `Date` header value for now (see `date`).
fn date_value() -> HeaderValue {
    let mut v = Vec::with_capacity(29);
    date(&mut v);
    HeaderValue::from_maybe_shared(Bytes::from(v))
        .unwrap_or_else(|_| HeaderValue::from_static("Thu, 01 Jan 1970 00:00:00 GMT"))
}

/// A small engine-made response (errors, 304s) with the default headers.
pub fn simple(code: u16, body: &'static str, close: bool) -> Response<RespBody> {
    let mut resp = Response::new(RespBody::full(Bytes::from_static(body.as_bytes())));
    *resp.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = resp.headers_mut();
    h.insert(http::header::SERVER, SERVER_VALUE);
    h.insert(http::header::CONTENT_TYPE, TEXT_HTML);
    if close {
        h.insert(http::header::CONNECTION, CLOSE);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> RespContext {
        RespContext {
            is_head: false,
            keep_alive: true,
            coding: Some(Coding::Gzip),
            compression: Some((1, 20)),
            compression_types: None,
            outflow: None,
            head_writer: false,
        }
    }

    #[test]
    fn end_twice_is_refused() {
        let (r, mut rx) = Responder::new(ctx());
        r.end(Bytes::from_static(b"hi")).expect("first end");
        assert_eq!(r.end(Bytes::new()), Err(RespError::Unavailable));
        assert_eq!(r.header("x", b"y", true), Err(RespError::Unavailable));
        let resp = rx.try_recv().expect("head");
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.headers()["content-type"], "text/html");
        assert_eq!(resp.headers()["connection"], "keep-alive");
    }

    #[test]
    fn dropped_responder_closes_channel() {
        let (r, mut rx) = Responder::new(ctx());
        drop(r);
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn the_last_responder_closes_and_ends_a_stream() {
        // A clone gone is not the last one.
        let (r, mut rx) = Responder::new(ctx());
        let r2 = r.clone();
        drop(r2);
        assert_eq!(rx.try_recv().err(), Some(answer::TryRecvError::Empty));
        assert!(r.is_writable());
        drop(r);
        assert_eq!(rx.try_recv().err(), Some(answer::TryRecvError::Closed));

        // A stream left without `end()` gets its end marker.
        let (r, mut rx) = Responder::new(ctx());
        let r2 = r.clone();
        r.write(Bytes::from_static(b"part")).expect("write");
        let Ok(mut resp) = rx.try_recv() else {
            panic!("no head");
        };
        let RespBody::Chunks { rx: chunks, .. } = resp.body_mut() else {
            panic!("not a stream");
        };
        assert_eq!(chunks.try_recv().ok(), Some(Bytes::from_static(b"part")));
        drop(r);
        assert!(chunks.try_recv().is_err());
        drop(r2);
        assert_eq!(chunks.try_recv().ok(), Some(Bytes::new()));

        // The receiver gone: the client is, and the responder says so.
        let (r, rx) = Responder::new(ctx());
        drop(rx);
        assert!(!r.is_writable());
        assert_eq!(r.end(Bytes::new()), Err(RespError::Unavailable));
    }

    #[test]
    fn big_bodies_are_gzipped_small_ones_not() {
        let (r, mut rx) = Responder::new(ctx());
        r.end(Bytes::from(vec![b'a'; 1000])).expect("end");
        let resp = rx.try_recv().expect("head");
        assert_eq!(resp.headers()["content-encoding"], "gzip");

        let (r, mut rx) = Responder::new(ctx());
        r.end(Bytes::from_static(b"tiny")).expect("end");
        assert!(rx
            .try_recv()
            .expect("head")
            .headers()
            .get("content-encoding")
            .is_none());
    }

    #[test]
    fn accept_encoding_choice() {
        // The highest q-value wins; a tie goes to br, then gzip.
        assert_eq!(
            Coding::from_accept(b"deflate, gzip;q=0.5"),
            Some(Coding::Deflate)
        );
        assert_eq!(Coding::from_accept(b"deflate, gzip"), Some(Coding::Gzip));
        assert_eq!(
            Coding::from_accept(b"gzip, deflate, br"),
            Some(Coding::Brotli)
        );
        assert_eq!(
            Coding::from_accept(b"br;q=0.8, gzip;q=0.9"),
            Some(Coding::Gzip)
        );
        assert_eq!(Coding::from_accept(b"deflate"), Some(Coding::Deflate));
        assert_eq!(Coding::from_accept(b"gzip;q=0, br"), Some(Coding::Brotli));
        assert_eq!(Coding::from_accept(b"gzip;q=0, identity"), None);
        assert_eq!(
            Coding::from_accept(b"*;q=0.5, gzip;q=0"),
            Some(Coding::Brotli)
        );
        assert_eq!(Coding::from_accept(b"*;q=0"), None);
    }

    #[test]
    fn brotli_round_trip() {
        let data = b"hello hello hello hello hello hello hello".repeat(10);
        let out = compress(Coding::Brotli, 5, &data).expect("compress");
        assert!(out.len() < data.len());
        let mut back = Vec::new();
        brotli::BrotliDecompress(&mut &out[..], &mut back).expect("decompress");
        assert_eq!(back, data);
    }

    #[test]
    fn header_names_cached() {
        use super::super::body::header_name;
        for _ in 0..2 {
            assert_eq!(
                header_name(b"E-Tag"),
                Some(HeaderName::from_static("e-tag"))
            );
            assert_eq!(
                header_name(b"Content-Type"),
                Some(http::header::CONTENT_TYPE)
            );
            assert_eq!(header_name(b"bad name"), None);
        }
    }

    #[test]
    fn names_checked_and_spelled_as_http_and_hyper() {
        // Every byte, alone and in a name: refused where neither `http` nor
        // an odd name takes it; else Title-Case, odd when `http` refuses.
        for b in 0..=255u8 {
            for name in [vec![b], vec![b'a', b, b'b'], vec![b'-', b, b'x', b'-']] {
                let mut h = HeadLines::default();
                let got = h.name(&name);
                let http_ok = HeaderName::from_bytes(&name).is_ok();
                match got {
                    None => assert!(!http_ok && !is_odd_name(&name), "{name:?}"),
                    Some(n) => {
                        assert_eq!(n.id == name_id::ODD, !http_ok, "{name:?}");
                        assert!(http_ok || is_odd_name(&name), "{name:?}");
                        h.put_line(n, b"v", true);
                        let (spelled, _) = h.iter().next().expect("line");
                        assert_eq!(spelled, &title_case(&name)[..], "{name:?}");
                    }
                }
            }
        }
        // Longer names (eight bytes at a time), against the byte by byte
        // way: every byte at every place of a 17-byte name.
        let base = b"x-amz-meta-a1b2-C";
        for b in 0..=255u8 {
            for at in 0..base.len() {
                let mut name = base.to_vec();
                name[at] = b;
                let mut h = HeadLines::default();
                match h.name(&name) {
                    None => assert!(
                        HeaderName::from_bytes(&name).is_err() && !is_odd_name(&name),
                        "{name:?}"
                    ),
                    Some(n) => {
                        assert_eq!(n.id == name_id::ODD, HeaderName::from_bytes(&name).is_err());
                        h.put_line(n, b"v", true);
                        let (spelled, _) = h.iter().next().expect("line");
                        assert_eq!(spelled, &title_case(&name)[..], "{name:?}");
                    }
                }
            }
        }
        for name in [
            &b"content-length"[..],
            b"-a-",
            b"--",
            b"A1-b2-C3-d4-E5-f6-g",
            b"x-",
        ] {
            let mut h = HeadLines::default();
            let n = h.name(name).expect("name");
            h.put_line(n, b"v", true);
            assert_eq!(h.iter().next().map(|l| l.0), Some(&title_case(name)[..]));
        }
        // Twice each (the second time from the memo), in slots shared.
        for _ in 0..2 {
            for name in [
                &b"last-modified"[..],
                b"LAST-MODIFIED",
                b"Accept-Ranges",
                b"e-tag",
                b"x",
                b"abc",
                b"abcd",
                b"x-a-very-long-header-name-here-32",
                b"x-a-very-long-header-name-here-33!",
                b"bad name",
                b"x(",
            ] {
                let mut h = HeadLines::default();
                match h.name(name) {
                    None => assert!(HeaderName::from_bytes(name).is_err() && !is_odd_name(name)),
                    Some(n) => {
                        assert_eq!(n.id == name_id::ODD, is_odd_name(name), "{name:?}");
                        h.put_line(n, b"v", true);
                        assert_eq!(h.iter().next().map(|l| l.0), Some(&title_case(name)[..]));
                    }
                }
            }
        }
        assert!(HeadLines::default().name(b"").is_none());
        let id = |n: &[u8]| HeadLines::default().name(n).map(|p| p.id);
        assert_eq!(id(b"content-TYPE"), Some(name_id::CONTENT_TYPE));
        assert_eq!(id(b"SET-COOKIE"), Some(name_id::SET_COOKIE));
        assert_eq!(id(b"connection"), Some(name_id::CONNECTION));
        assert_eq!(id(b"Connections"), Some(name_id::OTHER));
        assert_eq!(id(b"transfer-encoding"), Some(name_id::TRANSFER_ENCODING));
    }

    #[test]
    fn odd_names_stand_in_and_keep_their_place() {
        let (r, _rx) = Responder::new(ctx());
        r.header("x(", b"1", true).expect("x(");
        r.header("\"", b"2", true).expect("quote");
        // A real name equal to a stand-in moves the stand-in, in place.
        r.header("x0", b"3", true).expect("x0");
        r.header("X(", b"4", true).expect("X( again");
        r.exact_name(b"x(");
        for bad in ["a:b", "a b", "a\rb", ""] {
            assert!(r.header(bad, b"v", true).is_err(), "{bad:?}");
        }
        let snap = r.snapshot();
        let names: Vec<&[u8]> = snap.headers.iter().map(|(n, _)| n.as_slice()).collect();
        assert_eq!(names, [&b"x("[..], b"\"", b"X0"]);
        assert_eq!(snap.headers[0].1, vec![b"4".to_vec()]);
        assert_ne!(stand_in(b"x(", 0), stand_in(b"x(", 1));
        assert_eq!(stand_in(b"(", STAND_IN_BYTES.len()), None);
    }

    #[test]
    fn odd_names_go_to_hyper_as_stand_ins() {
        let (r, mut rx) = Responder::new(RespContext::plain(true));
        r.header("x(", b"1", true).expect("x(");
        r.header("x0", b"2", true).expect("x0");
        r.header("X(", b"3", false).expect("X(");
        r.end(Bytes::new()).expect("end");
        let resp = rx.try_recv().expect("head");
        let ex = resp.extensions().get::<ExactNames>().expect("exact names");
        assert_eq!(ex.1.len(), 1);
        let (stand, spelled) = &ex.1[0];
        assert_eq!(&spelled[..], b"X(");
        assert_ne!(stand, "x0");
        let values: Vec<_> = resp.headers().get_all(stand).iter().collect();
        assert_eq!(values, ["1", "3"]);
        assert_eq!(resp.headers()["x0"], "2");
    }

    #[test]
    fn values_checked_as_header_value() {
        let mut cases: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"Thu, 18 Jun 2015 10:24:27 GMT".to_vec(),
            b"a\tb and more text here".to_vec(),
            "caf\u{e9} au lait, tr\u{e8}s bien".as_bytes().to_vec(),
        ];
        for bad in [0u8, 10, 13, 31, 127] {
            for at in [0, 5, 8, 17] {
                let mut v = b"0123456789abcdefghij".to_vec();
                v[at] = bad;
                cases.push(v);
            }
        }
        for len in 1..=17 {
            for at in 0..len {
                for bad in [0u8, 9, 10, 31, 127, 0x80, 0xff] {
                    let mut v = vec![b'x'; len];
                    v[at] = bad;
                    cases.push(v);
                }
            }
        }
        for v in cases {
            assert_eq!(
                valid_value(&v),
                HeaderValue::from_bytes(&v).is_ok(),
                "{v:?}"
            );
        }
    }

    #[test]
    fn lines_keep_values_of_a_name_together() {
        let mut h = HeadLines::default();
        let mut set = |n: &str, v: &str, replace: bool| {
            let p = h.name(n.as_bytes()).expect("name");
            h.put_line(p, v.as_bytes(), replace);
        };
        set("a", "1", true);
        set("b", "2", true);
        set("A", "3", false);
        set("c", "4", true);
        set("b", "5", false);
        let got: Vec<(Vec<u8>, Vec<u8>)> =
            h.iter().map(|(k, v)| (k.to_vec(), v.to_vec())).collect();
        let want = [("A", "1"), ("A", "3"), ("B", "2"), ("B", "5"), ("C", "4")];
        assert_eq!(got.len(), want.len());
        for ((k, v), (wk, wv)) in got.iter().zip(want) {
            assert_eq!((&k[..], &v[..]), (wk.as_bytes(), wv.as_bytes()));
        }
        // Replacing keeps the place of the first value and drops the others.
        let p = h.name(b"a").expect("a");
        h.put_line(p, b"9", true);
        let p = h.name(b"B").expect("b");
        h.remove_name(p);
        let names: Vec<&[u8]> = h.iter().map(|(k, _)| k).collect();
        assert_eq!(names, [&b"A"[..], b"C"]);
        assert_eq!(h.iter().next().map(|(_, v)| v), Some(&b"9"[..]));
        // A refused name leaves nothing behind.
        let p = h.name(b"x-refused").expect("x");
        h.drop_name(p);
        let mut text = Vec::new();
        let mut keep = None;
        let mut date = false;
        h.write_head(&mut text, &mut keep, &mut date)
            .expect("plain");
        assert_eq!(text, b"A: 9\r\nC: 4\r\n");
    }

    #[test]
    fn bad_status_is_invalid() {
        let (r, _rx) = Responder::new(ctx());
        assert!(matches!(r.status(42, None), Err(RespError::Invalid(_))));
        assert!(matches!(
            r.header("bad\nname", b"v", true),
            Err(RespError::Invalid(_))
        ));
    }
}
