//! `Responder`: the engine side of `Swoole\Http\Response`.
//!
//! The hyper service waits on a oneshot for the response head. `end()`,
//! `write()` or `sendfile()` send it; if the `Responder` is dropped without
//! any of them (an exception, a forgotten `end()`), the sender drops and the
//! service answers 500 itself, so a client always gets an answer.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use crate::engine::net::outflow::Outflow;

use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::{Response, StatusCode};
use tokio::sync::{mpsc, oneshot};

use super::body::{put, HeadLines, RespBody};
use super::mime;

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

/// Most names a process parses are kept, as the script spelled them.
const NAME_CACHE_MAX: usize = 64;

/// Header names as scripts spelled them, and what each parsed to.
type NameCache = Vec<(Box<[u8]>, HeaderName)>;

/// Header names as scripts spell them, each parsed once. A script sets
/// the same few names on every response; parsing one (lower-casing, the
/// standard-name match, an allocation for a non-standard name) costs
/// several times a look-up here. Past `NAME_CACHE_MAX` distinct
/// spellings, new ones are parsed every time. (Process-wide behind a lock
/// never contended, as `date`'s: cheaper than a thread-local's look-up in
/// a shared object.)
static NAME_CACHE: std::sync::Mutex<NameCache> = std::sync::Mutex::new(Vec::new());

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
    chunks.remainder().iter().all(|&b| valid_byte(b))
}

fn valid_byte(b: u8) -> bool {
    (b >= 32 && b != 127) || b == b'\t'
}

/// `HeaderName::from_bytes`, through `NAME_CACHE`; `None` when invalid.
fn header_name(name: &[u8]) -> Option<HeaderName> {
    let mut cache = NAME_CACHE.lock().unwrap_or_else(|e| e.into_inner());
    // (Length and first byte before the bytes: `Last-Modified` and
    // `Accept-Ranges` are as long.)
    let hit = cache
        .iter()
        .find(|(k, _)| k.len() == name.len() && k.first() == name.first() && **k == *name);
    if let Some((_, n)) = hit {
        return Some(n.clone());
    }
    let n = HeaderName::from_bytes(name).ok()?;
    if cache.len() < NAME_CACHE_MAX {
        cache.push((name.into(), n.clone()));
    }
    Some(n)
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
    let mut up = true;
    name.iter()
        .map(|&c| {
            let o = if up {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            };
            up = c == b'-';
            o
        })
        .collect()
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
/// empty, they are not sent (and their default is not either).
fn is_managed(n: &HeaderName) -> bool {
    use http::header::*;
    [
        SERVER,
        CONNECTION,
        DATE,
        CONTENT_LENGTH,
        CONTENT_TYPE,
        TRANSFER_ENCODING,
        CONTENT_ENCODING,
    ]
    .contains(n)
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
    status: u16,
    reason: Option<String>,
    /// Built as the script sets them, then moved whole into the response.
    headers: HeadLines,
    /// `SET_*` bits; a bit once set stays true (a header `remove_header`
    /// took out still keeps its default out, as in Swoole).
    defaults_set: u8,
    /// Names to send as spelled (`SET_EXACT`).
    exact: Vec<Box<[u8]>>,
    /// Odd names (`is_odd_name`, `SET_EXACT`): stand-in, spelling.
    odd: Vec<(HeaderName, Box<[u8]>)>,
    head_tx: Option<oneshot::Sender<Response<RespBody>>>,
    chunk_tx: Option<mpsc::UnboundedSender<Bytes>>,
    ended: bool,
    /// `trailer()`s, sent after the body by `end()`.
    trailers: Option<HeaderMap>,
    ctx: RespContext,
}

/// [`Responder::snapshot`]: headers (every value of a name), cookie
/// lines, trailers.
#[derive(Debug, Default)]
pub struct Snapshot {
    pub headers: Vec<(Vec<u8>, Vec<Vec<u8>>)>,
    pub cookies: Vec<Vec<u8>>,
    pub trailers: Vec<(Vec<u8>, Vec<u8>)>,
}

#[derive(Clone)]
pub struct Responder(Rc<RefCell<State>>);

impl Responder {
    pub fn new(ctx: RespContext) -> (Responder, oneshot::Receiver<Response<RespBody>>) {
        Self::with_lines(ctx, HeadLines::default())
    }

    /// `new`, the script's headers to go in `lines` (pooled buffers).
    pub fn with_lines(
        ctx: RespContext,
        lines: HeadLines,
    ) -> (Responder, oneshot::Receiver<Response<RespBody>>) {
        let (tx, rx) = oneshot::channel();
        let state = State {
            status: 200,
            reason: None,
            headers: lines,
            defaults_set: 0,
            exact: Vec::new(),
            odd: Vec::new(),
            head_tx: Some(tx),
            chunk_tx: None,
            ended: false,
            trailers: None,
            ctx,
        };
        (Responder(Rc::new(RefCell::new(state))), rx)
    }

    /// False once ended, or once the client went away.
    pub fn is_writable(&self) -> bool {
        let s = self.0.borrow();
        if s.ended {
            return false;
        }
        match (&s.head_tx, &s.chunk_tx) {
            (Some(tx), _) => !tx.is_closed(),
            (None, Some(tx)) => !tx.is_closed(),
            (None, None) => false,
        }
    }

    pub fn status(&self, code: i64, reason: Option<&str>) -> Result<(), RespError> {
        let mut s = self.0.borrow_mut();
        if s.ended || s.head_tx.is_none() {
            return Err(RespError::Unavailable);
        }
        if !(100..=999).contains(&code) {
            return Err(RespError::Invalid(format!("invalid status code {code}")));
        }
        s.status = code as u16;
        s.reason = reason.filter(|r| !r.is_empty()).map(str::to_string);
        Ok(())
    }

    /// Adds (or with `replace`, replaces) a header.
    pub fn header(&self, name: &str, value: &[u8], replace: bool) -> Result<(), RespError> {
        self.header_bytes(name.as_bytes(), value, replace)
    }

    /// `header` with the name as bytes: a valid name is ASCII, so a caller
    /// holding bytes need not check UTF-8 first.
    pub fn header_bytes(&self, name: &[u8], value: &[u8], replace: bool) -> Result<(), RespError> {
        let mut s = self.0.borrow_mut();
        let n = s.open_name(name)?;
        // As Swoole: trailing white space (a line break too) is dropped.
        let mut value = value;
        while let [rest @ .., last] = value {
            if !last.is_ascii_whitespace() {
                break;
            }
            value = rest;
        }
        if !valid_value(value) {
            let name = String::from_utf8_lossy(name);
            return Err(RespError::Invalid(format!(
                "invalid value for header '{name}'"
            )));
        }
        s.note_default(&n);
        if value.is_empty() && is_managed(&n) {
            s.defaults_set |= SET_EMPTY;
        }
        if replace {
            s.headers.insert(n, value);
        } else {
            s.headers.append(n, value);
        }
        Ok(())
    }

    /// `header($name, null)`: the header goes (every value of it); as in
    /// Swoole a default of that name is not sent either.
    pub fn remove_header(&self, name: &[u8]) -> Result<(), RespError> {
        let mut s = self.0.borrow_mut();
        let n = s.open_name(name)?;
        s.note_default(&n);
        s.headers.remove(&n);
        Ok(())
    }

    /// Sends header name `name` as spelled instead of in Title-Case (a
    /// header of that name must be set as well; case-insensitive).
    pub fn exact_name(&self, name: &[u8]) {
        let mut s = self.0.borrow_mut();
        if let Some(o) = s.odd.iter_mut().find(|(_, e)| e.eq_ignore_ascii_case(name)) {
            o.1 = name.into();
        } else if !name.is_empty() && title_case(name) != name {
            s.defaults_set |= SET_EXACT;
            s.exact.push(name.into());
        }
    }

    /// What the script set so far, as Swoole's `$response->header`,
    /// `->cookie` and `->trailer` show it: header names as they will be
    /// sent (Title-Case, or as spelled; trailer names in lower case),
    /// `Set-Cookie` lines apart, every
    /// value of a name in order. Empty once the head is gone.
    pub fn snapshot(&self) -> Snapshot {
        let s = self.0.borrow();
        let spell = |n: &HeaderName| -> Vec<u8> {
            let b = n.as_str().as_bytes();
            if let Some((_, e)) = s.odd.iter().find(|(o, _)| o == n) {
                return e.to_vec();
            }
            s.exact
                .iter()
                .find(|e| e.eq_ignore_ascii_case(b))
                .map(|e| e.to_vec())
                .unwrap_or_else(|| title_case(b))
        };
        let mut snap = Snapshot::default();
        let mut prev: Option<&HeaderName> = None;
        for (name, v) in s.headers.iter() {
            if name == http::header::SET_COOKIE {
                snap.cookies.push(v.to_vec());
                continue;
            }
            // (The values of a name are together.)
            match snap.headers.last_mut() {
                Some((_, values)) if prev == Some(name) => values.push(v.to_vec()),
                _ => snap.headers.push((spell(name), vec![v.to_vec()])),
            }
            prev = Some(name);
        }
        if let Some(t) = &s.trailers {
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
        let mut s = self.0.borrow_mut();
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
            let resp = s.build(body, None)?;
            let head_tx = s.head_tx.take().ok_or(RespError::Unavailable)?;
            head_tx.send(resp).map_err(|_| RespError::Unavailable)?;
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
        self.0.borrow().ctx.outflow.clone()
    }

    /// Adds a trailer (name lower-cased), sent after the body by `end()`.
    pub fn trailer(&self, name: &str, value: &[u8]) -> Result<(), RespError> {
        let mut s = self.0.borrow_mut();
        if s.ended {
            return Err(RespError::Unavailable);
        }
        let n = HeaderName::from_bytes(name.to_ascii_lowercase().as_bytes())
            .map_err(|_| RespError::Invalid(format!("invalid trailer name '{name}'")))?;
        let v = HeaderValue::from_bytes(value)
            .map_err(|_| RespError::Invalid(format!("invalid value for trailer '{name}'")))?;
        s.trailers.get_or_insert_with(HeaderMap::new).insert(n, v);
        Ok(())
    }

    /// `end(data)` with the bytes of `data` (the script's string): a small
    /// body of a plain answer on the fast path is kept in the head lines'
    /// buffer (pooled) instead of a buffer of its own; anything else as `end`.
    pub fn end_slice(&self, data: &[u8]) -> Result<(), RespError> {
        let mut s = self.0.borrow_mut();
        // What `end` checks before it makes a `Plain` body: not ended, no
        // stream from `write()`, no trailers, the fast path's head writer
        // on a connection that stays open, and no compression (with a
        // coding `maybe_compress` may compress).
        let plain = !s.ended
            && s.chunk_tx.is_none()
            && s.trailers.is_none()
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
        let mut resp = s.build(body, None)?;
        if let RespBody::Plain { lines, .. } = resp.body_mut() {
            // (After the values `build` moved in.)
            if !data.is_empty() {
                lines.put_body(data);
            }
        }
        s.end_with(resp)
    }

    /// Ends the response, with a last piece of body.
    pub fn end(&self, data: Bytes) -> Result<(), RespError> {
        let mut s = self.0.borrow_mut();
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
        let body = match s.trailers.take() {
            Some(t) => RespBody::Trailed {
                data: (!body.is_empty()).then_some(body),
                trailers: Some(t),
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
        let resp = s.build(body, coding)?;
        s.end_with(resp)
    }

    /// Sends `length` bytes (0: to the end) of a file from `offset`.
    pub fn sendfile(
        &self,
        path: &std::path::Path,
        offset: u64,
        length: u64,
    ) -> Result<(), RespError> {
        let mut s = self.0.borrow_mut();
        if s.ended || s.head_tx.is_none() {
            return Err(RespError::Unavailable);
        }
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
                .insert(http::header::CONTENT_TYPE, mime::for_path(path).as_bytes());
            s.defaults_set |= SET_CONTENT_TYPE;
        }
        let body = RespBody::file(file, offset, len)
            .map_err(|e| RespError::File(format!("seek failed: {e}")))?;
        let resp = s.build(body, None)?;
        s.end_with(resp)
    }

    /// Answers `code` with an empty body if nothing was sent yet; cuts a
    /// chunked stream short otherwise. Used after a PHP failure.
    pub fn fail(&self, code: u16) {
        let mut s = self.0.borrow_mut();
        if s.ended {
            return;
        }
        s.ended = true;
        s.chunk_tx = None;
        if let Some(tx) = s.head_tx.take() {
            let _ = tx.send(simple(code, "", false));
        }
    }
}

impl Drop for State {
    /// A response streamed with `write()` and left without `end()` by a
    /// handler that returned normally is ended, as Swoole ends it when the
    /// response object is freed; after a failure `fail()` has already
    /// dropped the sender without the marker, which cuts the stream.
    fn drop(&mut self) {
        if let Some(tx) = self.chunk_tx.take() {
            let _ = tx.send(Bytes::new());
        }
    }
}

impl State {
    /// `name` as a header name, while headers may still be set.
    fn open_name(&mut self, name: &[u8]) -> Result<HeaderName, RespError> {
        if self.ended || self.head_tx.is_none() {
            return Err(RespError::Unavailable);
        }
        if let Some(n) = header_name(name) {
            if !self.odd.is_empty() {
                self.move_stand_in(&n);
            }
            return Ok(n);
        }
        // A name Swoole sends as it is (`"`, `x(`, ...): its stand-in in
        // the map, its spelling (Title-Case unless `exact_name` says
        // otherwise) for the connection to write.
        if is_odd_name(name) {
            if let Some((n, _)) = self.odd.iter().find(|(_, e)| e.eq_ignore_ascii_case(name)) {
                return Ok(n.clone());
            }
            if let Some(n) = self.free_stand_in(name) {
                self.defaults_set |= SET_EXACT;
                self.odd.push((n.clone(), title_case(name).into()));
                return Ok(n);
            }
        }
        let name = String::from_utf8_lossy(name);
        Err(RespError::Invalid(format!("invalid header name '{name}'")))
    }

    /// The first stand-in for odd name `name` that no header of this
    /// response has.
    fn free_stand_in(&self, name: &[u8]) -> Option<HeaderName> {
        (0..4096)
            .map_while(|k| stand_in(name, k))
            .filter_map(|c| HeaderName::from_bytes(&c).ok())
            .find(|c| !self.headers.contains(c) && !self.odd.iter().any(|(o, _)| o == c))
    }

    /// The script sets header `n`, which stands in for an odd name: that
    /// one gets another stand-in, in the same place among the headers.
    fn move_stand_in(&mut self, n: &HeaderName) {
        let Some(i) = self.odd.iter().position(|(o, _)| o == n) else {
            return;
        };
        let Some(new) = self.free_stand_in(&self.odd[i].1) else {
            return;
        };
        self.headers.rename(n, &new);
        self.odd[i].0 = new;
    }

    /// Remembers that the script set one of the headers `build` defaults.
    /// (Comparing with a standard name is an integer compare, no hashing.)
    fn note_default(&mut self, n: &HeaderName) {
        if *n == http::header::SERVER {
            self.defaults_set |= SET_SERVER;
        } else if *n == http::header::CONTENT_TYPE {
            self.defaults_set |= SET_CONTENT_TYPE;
        } else if *n == http::header::CONNECTION {
            self.defaults_set |= SET_CONNECTION;
        } else if *n == http::header::DATE {
            self.defaults_set |= SET_DATE;
        } else if *n == http::header::SET_COOKIE {
            self.defaults_set |= SET_COOKIES;
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
    fn end_with(&mut self, resp: Response<RespBody>) -> Result<(), RespError> {
        self.ended = true;
        self.mark_ended();
        let head_tx = self.head_tx.take().ok_or(RespError::Unavailable)?;
        head_tx.send(resp).map_err(|_| RespError::Unavailable)
    }

    fn has(&self, name: &HeaderName) -> bool {
        self.headers.contains(name)
    }

    fn maybe_compress(&self, data: Bytes) -> (Bytes, Option<Coding>) {
        let (Some((level, min_len)), Some(coding)) = (self.ctx.compression, self.ctx.coding) else {
            return (data, None);
        };
        if data.len() < min_len || self.has(&http::header::CONTENT_ENCODING) {
            return (data, None);
        }
        if let Some(types) = &self.ctx.compression_types {
            let ct = self
                .headers
                .get(&http::header::CONTENT_TYPE)
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

    fn build(
        &mut self,
        body: RespBody,
        coding: Option<Coding>,
    ) -> Result<Response<RespBody>, RespError> {
        let status = StatusCode::from_u16(self.status)
            .map_err(|_| RespError::Invalid(format!("invalid status code {}", self.status)))?;
        let mut resp = Response::new(body);
        *resp.status_mut() = status;
        if let Some(reason) = self.reason.take() {
            if let Ok(r) = hyper::ext::ReasonPhrase::try_from(reason.into_bytes()) {
                resp.extensions_mut().insert(r);
            }
        }
        let mut lines = std::mem::take(&mut self.headers);
        if self.defaults_set & SET_EMPTY != 0 {
            lines.lines.retain(|l| !(l.1 == l.2 && is_managed(&l.0)));
        }
        if self.defaults_set & SET_COOKIES != 0 {
            // Swoole writes the cookies after every other header the
            // script set (the lines keep them where the first one went).
            let (cookies, mut rest): (Vec<_>, Vec<_>) = std::mem::take(&mut lines.lines)
                .into_iter()
                .partition(|l| l.0 == http::header::SET_COOKIE);
            rest.extend(cookies);
            lines.lines = rest;
        }
        if self.defaults_set & SET_EXACT != 0 {
            resp.extensions_mut().insert(ExactNames(
                std::mem::take(&mut self.exact),
                std::mem::take(&mut self.odd),
            ));
        }
        if let RespBody::Plain { lines: l, .. } = resp.body_mut() {
            // The fast path writes them, and the defaults (`materialize`
            // when it does not).
            *l = lines;
            return Ok(resp);
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
        Ok(resp)
    }
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
    use std::sync::Mutex;
    use std::time::{Duration, UNIX_EPOCH};
    // (second, its HTTP date); a worker's connections share one thread, so
    // the lock is never contended.
    static CACHE: Mutex<(u64, [u8; 29])> = Mutex::new((0, [0u8; 29]));
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
    let mut c = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if c.0 != secs {
        let s = httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(secs));
        if s.len() == 29 {
            c.1.copy_from_slice(s.as_bytes());
            c.0 = secs;
        } else {
            put(out, s.as_bytes());
            return;
        }
    }
    put(out, &c.1);
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
    fn header_names_cached_as_spelled() {
        for _ in 0..2 {
            assert_eq!(
                header_name(b"E-Tag"),
                Some(HeaderName::from_static("e-tag"))
            );
            assert_eq!(
                header_name(b"e-tag"),
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
        let n = |s: &'static str| HeaderName::from_static(s);
        h.insert(n("a"), b"1");
        h.insert(n("b"), b"2");
        h.append(n("a"), b"3");
        h.insert(n("c"), b"4");
        h.append(n("b"), b"5");
        let got: Vec<(String, Vec<u8>)> = h
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), v.to_vec()))
            .collect();
        let want = [("a", "1"), ("a", "3"), ("b", "2"), ("b", "5"), ("c", "4")];
        assert_eq!(got.len(), want.len());
        for ((k, v), (wk, wv)) in got.iter().zip(want) {
            assert_eq!((k.as_str(), &v[..]), (wk, wv.as_bytes()));
        }
        // Replacing keeps the place of the first value and drops the others.
        h.insert(n("a"), b"9");
        h.remove(&n("b"));
        let names: Vec<&str> = h.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(h.get(&n("a")), Some(&b"9"[..]));
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
