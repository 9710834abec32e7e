//! The response body type handed to hyper: a whole buffer, a stream of
//! `write()` chunks, a file range read in pieces, or part heads and file
//! ranges in turn (a multi-range static answer).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use http_body::{Body, Frame, SizeHint};
use tokio::sync::mpsc;

use crate::engine::net::outflow::Outflow;
use crate::engine::worker::bufpool::HeadLine;

const FILE_CHUNK: usize = 64 * 1024;

pub enum RespBody {
    /// `end($data)`: one buffer, so hyper sends `Content-Length`.
    Full(Option<Bytes>),
    /// `write()`: chunks, then an empty one from `end()` (`END`). A sender
    /// dropped before that (the handler failed, the worker is going) is a
    /// stream cut short: an error, so hyper closes the connection without
    /// the final `0\r\n\r\n` and the client cannot take it for a whole
    /// body. `flow` counts the unsent bytes (`socket_buffer_size`).
    Chunks {
        rx: mpsc::UnboundedReceiver<Bytes>,
        flow: Option<Rc<Outflow>>,
        done: bool,
        /// The chunk after the one just yielded, looked at so that the last
        /// one is seen as the end (HTTP/2 sets END_STREAM on it, as Swoole,
        /// instead of sending an empty DATA frame after it).
        peeked: Option<Bytes>,
    },
    /// `end($data)` answered to the HTTP/1 fast path, which writes the
    /// default headers the script did not set itself (`defaults`: the
    /// `response::SET_*` bits of those it did) instead of finding them in
    /// the header map. Only the fast path's responder makes it; anything
    /// else sees it as `Full` once `response::materialize` ran.
    /// `lines`: the script's headers, in order, and the body when it is
    /// small (`data` is `None` then: see `Responder::end_slice`).
    Plain {
        data: Option<Bytes>,
        defaults: u8,
        lines: HeadLines,
    },
    /// `sendfile()` and the static handler: `remaining` bytes from the file.
    File { file: File, remaining: u64 },
    /// The static handler's `multipart/byteranges` answer: part heads and
    /// file ranges in turn.
    Parts(Box<FileParts>),
    /// `end($data)` after `trailer()`: the buffer, then a trailers frame
    /// (HTTP/2 sends it as a last HEADERS frame; HTTP/1 drops it unless
    /// chunked).
    Trailed {
        data: Option<Bytes>,
        /// (Boxed: a map is large, and every response moves a `RespBody`.)
        trailers: Option<Box<http::HeaderMap>>,
    },
}

impl RespBody {
    pub fn empty() -> Self {
        RespBody::Full(None)
    }

    pub fn full(b: impl Into<Bytes>) -> Self {
        let b = b.into();
        if b.is_empty() {
            RespBody::Full(None)
        } else {
            RespBody::Full(Some(b))
        }
    }

    /// A file range; the file is positioned at `offset`.
    pub fn file(mut file: File, offset: u64, len: u64) -> std::io::Result<Self> {
        file.seek(SeekFrom::Start(offset))?;
        Ok(RespBody::File {
            file,
            remaining: len,
        })
    }

    /// Pieces of `file` and buffers, sent in order.
    pub fn file_parts(file: File, parts: Vec<Part>) -> Self {
        let remaining = parts
            .iter()
            .map(|p| match p {
                Part::Data(b) => b.len() as u64,
                Part::Range { len, .. } => *len,
            })
            .sum();
        RespBody::Parts(Box::new(FileParts {
            file,
            parts: parts.into(),
            remaining,
        }))
    }
}

/// One piece of a [`RespBody::Parts`] body.
pub enum Part {
    Data(Bytes),
    Range { offset: u64, len: u64 },
}

pub struct FileParts {
    file: File,
    parts: std::collections::VecDeque<Part>,
    remaining: u64,
}

impl FileParts {
    fn next_frame(&mut self) -> Option<Result<Frame<Bytes>, std::io::Error>> {
        use std::os::unix::fs::FileExt;
        loop {
            match self.parts.front_mut()? {
                Part::Data(b) => {
                    let b = std::mem::take(b);
                    self.parts.pop_front();
                    self.remaining = self.remaining.saturating_sub(b.len() as u64);
                    return Some(Ok(Frame::data(b)));
                }
                Part::Range { len: 0, .. } => {
                    self.parts.pop_front();
                }
                Part::Range { offset, len } => {
                    let mut buf = vec![0u8; (*len).min(FILE_CHUNK as u64) as usize];
                    return Some(match self.file.read_at(&mut buf, *offset) {
                        Ok(0) => {
                            self.parts.clear();
                            self.remaining = 0;
                            Err(std::io::Error::new(
                                std::io::ErrorKind::UnexpectedEof,
                                "file shrank while being sent",
                            ))
                        }
                        Ok(n) => {
                            buf.truncate(n);
                            *offset += n as u64;
                            *len -= n as u64;
                            self.remaining = self.remaining.saturating_sub(n as u64);
                            Ok(Frame::data(Bytes::from(buf)))
                        }
                        Err(e) => Err(e),
                    });
                }
            }
        }
    }
}

impl Body for RespBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            RespBody::Full(b) => Poll::Ready(b.take().map(|b| Ok(Frame::data(b)))),
            RespBody::Plain { data, lines, .. } => Poll::Ready(
                data.take()
                    .or_else(|| lines.take_body())
                    .map(|b| Ok(Frame::data(b))),
            ),
            RespBody::Trailed { data, trailers } => Poll::Ready(match data.take() {
                Some(b) => Some(Ok(Frame::data(b))),
                None => trailers.take().map(|t| Ok(Frame::trailers(*t))),
            }),
            RespBody::Chunks {
                rx,
                flow,
                done,
                peeked,
            } => {
                if *done {
                    return Poll::Ready(None);
                }
                let next = match peeked.take() {
                    Some(b) => Poll::Ready(Some(b)),
                    None => rx.poll_recv(cx),
                };
                match next {
                    Poll::Ready(Some(b)) if b.is_empty() => {
                        *done = true;
                        Poll::Ready(None)
                    }
                    Poll::Ready(Some(b)) => {
                        if let Some(f) = flow {
                            f.sent(b.len());
                        }
                        match rx.try_recv() {
                            Ok(n) if n.is_empty() => *done = true,
                            Ok(n) => *peeked = Some(n),
                            Err(_) => {}
                        }
                        Poll::Ready(Some(Ok(Frame::data(b))))
                    }
                    Poll::Ready(None) => {
                        *done = true;
                        Poll::Ready(Some(Err(std::io::Error::new(
                            std::io::ErrorKind::ConnectionAborted,
                            "response cut short",
                        ))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
            RespBody::Parts(p) => Poll::Ready(p.next_frame()),
            RespBody::File { file, remaining } => {
                if *remaining == 0 {
                    return Poll::Ready(None);
                }
                // Local files: a blocking read of one chunk is short and
                // bounded, and keeps the worker free of a thread pool.
                let want = (*remaining).min(FILE_CHUNK as u64) as usize;
                let mut buf = vec![0u8; want];
                match file.read(&mut buf) {
                    Ok(0) => {
                        *remaining = 0;
                        Poll::Ready(Some(Err(std::io::Error::new(
                            std::io::ErrorKind::UnexpectedEof,
                            "file shrank while being sent",
                        ))))
                    }
                    Ok(n) => {
                        buf.truncate(n);
                        *remaining -= n as u64;
                        Poll::Ready(Some(Ok(Frame::data(Bytes::from(buf)))))
                    }
                    Err(e) => Poll::Ready(Some(Err(e))),
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            RespBody::Full(b) => b.is_none(),
            RespBody::Plain { data, lines, .. } => data.is_none() && lines.body().is_empty(),
            RespBody::Trailed { data, trailers } => data.is_none() && trailers.is_none(),
            RespBody::Chunks { done, .. } => *done,
            RespBody::File { remaining, .. } => *remaining == 0,
            RespBody::Parts(p) => p.parts.is_empty(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            RespBody::Full(b) => SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64)),
            RespBody::Plain { data, lines, .. } => SizeHint::with_exact(
                (data.as_ref().map_or(0, Bytes::len) + lines.body().len()) as u64,
            ),
            RespBody::Trailed { data, .. } => {
                SizeHint::with_exact(data.as_ref().map_or(0, |b| b.len() as u64))
            }
            RespBody::Chunks { .. } => SizeHint::default(),
            RespBody::File { remaining, .. } => SizeHint::with_exact(*remaining),
            RespBody::Parts(p) => SizeHint::with_exact(p.remaining),
        }
    }
}

/// Appends `b` to `out`: `extend_from_slice`, inlined wherever it is used,
/// so that a piece of constant length (`": "`, `"\r\n"`, a default line)
/// is a few moves rather than a call into `memcpy` (a head is written from
/// about twenty pieces).
#[inline(always)]
pub(super) fn put(out: &mut Vec<u8>, b: &[u8]) {
    if out.capacity() - out.len() < b.len() {
        out.reserve(b.len());
    }
    let len = out.len();
    // SAFETY: there is room for `b.len()` more bytes after `len` (checked,
    // or made by `reserve`);
    // `b` cannot overlap `out`'s spare capacity (it is borrowed shared
    // while `out` is borrowed mutably); the bytes are initialised before
    // the length covers them.
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr(), out.as_mut_ptr().add(len), b.len());
        out.set_len(len + b.len());
    }
}

/// Appends header name `name` in Title-Case, as hyper writes it: the first
/// letter and each one after a `-` in upper case, the others in lower case
/// (every other byte as it is). Eight bytes at a time: the letters and the
/// bytes after a `-` are found in the word exactly, without carries between
/// bytes. (`response::title_case` for a `Vec`; `HeadLines::name`, which also
/// checks the name, for the script's names.)
pub(super) fn title_case_into(out: &mut Vec<u8>, name: &[u8]) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // 0x80 in each byte of `x` from `a` to `z` (or `A` to `Z`).
    let range = |x: u64, a: u8, z: u8| {
        let low = x & LOW7;
        (low + u64::from(0x80 - a) * ONES) & !(low + u64::from(0x80 - z - 1) * ONES) & !x & HIGH
    };
    let start = out.len();
    let end = start + name.len();
    put(out, name);
    // Room for whole words (cut off again below).
    put(out, &[0u8; 8]);
    // The first byte is upper-cased.
    let mut carry = 0x80u64;
    let mut i = start;
    while i < end {
        let Some(word) = out[i..].first_chunk_mut::<8>() else {
            break;
        };
        let x = u64::from_le_bytes(*word);
        // Every letter in lower case first.
        let x = x | (range(x, b'A', b'Z') >> 2);
        let t = x ^ (u64::from(b'-') * ONES);
        // 0x80 in each byte that is `-`.
        let dash = !(((t & LOW7) + LOW7) | t) & HIGH;
        let up = (dash << 8) | carry;
        carry = dash >> 56;
        *word = (x ^ ((up & range(x, b'a', b'z')) >> 2)).to_le_bytes();
        i += 8;
    }
    out.truncate(end);
}

/// What a header line's name is (`HeadLine::id`): the names the response
/// treats apart, told by a compare of their Title-Case spelling at
/// `header()` time (no `HeaderName` is made on the fast path).
pub mod name_id {
    /// Any other name (a token).
    pub const OTHER: u8 = 0;
    /// A name Swoole sends but `http` cannot hold (`"`, `x(`, ...): it goes
    /// through hyper as a stand-in (`Responder`'s `build`).
    pub const ODD: u8 = 1;
    pub const SERVER: u8 = 2;
    pub const CONTENT_TYPE: u8 = 3;
    pub const CONNECTION: u8 = 4;
    pub const DATE: u8 = 5;
    pub const SET_COOKIE: u8 = 6;
    pub const CONTENT_LENGTH: u8 = 7;
    pub const TRANSFER_ENCODING: u8 = 8;
    pub const CONTENT_ENCODING: u8 = 9;
}

/// The id (`name_id`) of a name in Title-Case.
fn name_id(n: &[u8]) -> u8 {
    use name_id::*;
    match n.len() {
        4 if n == b"Date" => DATE,
        6 if n == b"Server" => SERVER,
        10 if n == b"Connection" => CONNECTION,
        10 if n == b"Set-Cookie" => SET_COOKIE,
        12 if n == b"Content-Type" => CONTENT_TYPE,
        14 if n == b"Content-Length" => CONTENT_LENGTH,
        16 if n == b"Content-Encoding" => CONTENT_ENCODING,
        17 if n == b"Transfer-Encoding" => TRANSFER_ENCODING,
        _ => OTHER,
    }
}

/// A byte of a header name as `HeadLines::name` writes it, after a byte
/// that is not `-` (`[0]`: lower case) or after a `-` or first (`[1]`:
/// upper case): 0 when it cannot be in a name (a control byte, a space,
/// `:`, DEL, non-ASCII); a token byte (what `http` takes); any other
/// visible byte (an odd name's: `"`, `(`, `/`, ...) with its high bit set.
static NAME_BYTES: [[u8; 256]; 2] = {
    let mut t = [[0u8; 256]; 2];
    let mut b = 0x21;
    while b < 0x7f {
        let c = b as u8;
        let token = super::scan::is_tchar(c);
        if token {
            t[0][b] = c.to_ascii_lowercase();
            t[1][b] = c.to_ascii_uppercase();
        } else if c != b':' {
            t[0][b] = c | 0x80;
            t[1][b] = c | 0x80;
        }
        b += 1;
    }
    t
};

/// Eight bytes of a header name (`x`, little-endian; `n` of them count, 1
/// to 8) in Title-Case when each is a letter, a digit or `-` (the names
/// scripts set): `up` says the byte before was a `-` or none. With
/// whether the last one is a `-`; `None` for any other byte (`name`'s
/// byte by byte way then). A byte's high bit says what it is, computed
/// for the eight at once: no sum crosses into the next byte, as each
/// byte is below 0x80 first.
fn title8(x: u64, n: usize, up: bool) -> Option<(u64, bool)> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    let want = if n >= 8 {
        HIGH
    } else {
        HIGH & ((1u64 << (8 * n)) - 1)
    };
    if x & HIGH != 0 {
        return None;
    }
    let lower = x | (ONES * 0x20);
    // (`v + (0x80 - k)` has its high bit set where `v >= k`.)
    let letter = (lower + ONES * (0x80 - b'a' as u64)) & !(lower + ONES * (0x80 - b'{' as u64));
    let digit = (x + ONES * (0x80 - b'0' as u64)) & !(x + ONES * (0x80 - b':' as u64));
    let dash = !((x ^ (ONES * b'-' as u64)) + ONES * 0x7f);
    let (letter, dash) = (letter & HIGH & want, dash & HIGH & want);
    if (letter | (digit & HIGH) | dash) & want != want {
        return None;
    }
    let starts = ((dash << 8) | (u64::from(up) * 0x80)) & letter;
    let title = (x | (letter >> 2)) & !(starts >> 2);
    Some((title, (dash >> (8 * n - 1)) & 1 != 0))
}

/// Longest name `NAME_MEMO` keeps.
const MEMO_NAME_MAX: usize = 32;

/// A name as a script spelled it, and what `HeadLines::name` made of it.
#[derive(Clone, Copy)]
struct Memo {
    /// 0: an empty slot.
    len: u8,
    id: u8,
    key: u32,
    spelled: [u8; MEMO_NAME_MAX],
    title: [u8; MEMO_NAME_MAX],
}

const NO_MEMO: Memo = Memo {
    len: 0,
    id: 0,
    key: 0,
    spelled: [0; MEMO_NAME_MAX],
    title: [0; MEMO_NAME_MAX],
};

/// The last valid names `HeadLines::name` was given, one per slot
/// (`memo_slot`): a script sets the same few names on every response, and
/// a compare and a copy cost less than checking and spelling the name
/// again. Process-wide (cheaper than a thread-local's look-up in a shared
/// object), behind a flag instead of a lock.
static NAME_MEMO: Flagged<[Memo; 16]> = Flagged::new([NO_MEMO; 16]);

/// A process-wide cache for one thread at a time, behind a flag instead of
/// a lock (no lock call, no poisoning): a thread that finds it taken
/// (never, with a worker's one PHP thread) does without (`with` gives
/// `None`); after a panic in `with` it stays taken.
pub(super) struct Flagged<T> {
    busy: std::sync::atomic::AtomicBool,
    value: std::cell::UnsafeCell<T>,
}

// SAFETY: `value` is only reached through `with`, by the one thread that
// turned `busy` on, until it turns it off (`T: Send`: that thread may be
// another one each time).
unsafe impl<T: Send> Sync for Flagged<T> {}

impl<T> Flagged<T> {
    pub(super) const fn new(v: T) -> Self {
        Flagged {
            busy: std::sync::atomic::AtomicBool::new(false),
            value: std::cell::UnsafeCell::new(v),
        }
    }

    /// `f` on the value; `None` when another thread has it.
    #[inline]
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        use std::sync::atomic::Ordering;
        if self.busy.swap(true, Ordering::Acquire) {
            return None;
        }
        // SAFETY: `busy` was off and this thread turned it on: no other
        // reference to the value exists until it is turned off below.
        let r = f(unsafe { &mut *self.value.get() });
        self.busy.store(false, Ordering::Release);
        Some(r)
    }
}

/// The `NAME_MEMO` slot of a name as spelled (its length, first and last
/// bytes, mixed).
fn memo_slot(name: &[u8]) -> usize {
    (name_key(name).wrapping_mul(0x9e37_79b1) >> 28) as usize
}

/// Whether `a` (1 to `MEMO_NAME_MAX` bytes) is the start of `b`: words
/// compared, the last one overlapping the one before.
fn eq_prefix(a: &[u8], b: &[u8; MEMO_NAME_MAX]) -> bool {
    let n = a.len();
    let b = &b[..n];
    if n >= 8 {
        let w = |s: &[u8], i: usize| s[i..].first_chunk::<8>().map(|c| u64::from_le_bytes(*c));
        let mut i = 0;
        while i + 8 < n {
            if w(a, i) != w(b, i) {
                return false;
            }
            i += 8;
        }
        return w(a, n - 8) == w(b, n - 8);
    }
    if n >= 4 {
        let w = |s: &[u8], i: usize| s[i..].first_chunk::<4>().map(|c| u32::from_le_bytes(*c));
        return w(a, 0) == w(b, 0) && w(a, n - 4) == w(b, n - 4);
    }
    a == b
}

/// A header name `HeadLines::name` wrote at the end of the buffer, not
/// yet a line's (`put_line` or `drop_name`).
#[derive(Clone, Copy, Debug)]
pub(super) struct PendingName {
    at: (u32, u32),
    key: u32,
    pub(super) id: u8,
}

/// Whether line `l` has the name `n` (both in `text`): the same id, and
/// for a name without an id of its own (`OTHER`, `ODD`) the same spelling
/// (an id above `ODD` stands for one spelling).
fn same_name(text: &[u8], l: &HeadLine, n: PendingName) -> bool {
    let at = |r: (u32, u32)| &text[r.0 as usize..r.1 as usize];
    l.key == n.key && l.id == n.id && (n.id > name_id::ODD || at(l.name) == at(n.at))
}

/// `HeadLine::key` of a name in Title-Case (not empty): its length, first
/// and last bytes (most names a response has differ there).
fn name_key(n: &[u8]) -> u32 {
    let (first, last) = (n.first().copied(), n.last().copied());
    (n.len() as u32 & 0xffff)
        | u32::from(first.unwrap_or(0)) << 16
        | u32::from(last.unwrap_or(0)) << 24
}

/// The script's response headers in the order it set them: names (in
/// Title-Case, as they are sent) and values side by side in one buffer (no
/// allocation per line, no `HeaderName` until hyper needs a `HeaderMap`:
/// `into_map`). Values of a name stay together, as in a `HeaderMap`
/// (`append` puts a value after the last one of its name); `remove` keeps
/// the others' order, as Swoole's header array does.
#[derive(Default, Debug)]
pub struct HeadLines {
    text: Vec<u8>,
    pub(super) lines: Vec<HeadLine>,
    /// A small body kept in `text` after the values (the fast path's
    /// `end()`: no buffer of its own); empty when none.
    body: (u32, u32),
}

impl HeadLines {
    /// Lines kept in `text` and `lines` (emptied buffers, from a pool).
    pub fn from_parts(mut text: Vec<u8>, mut lines: Vec<HeadLine>) -> HeadLines {
        text.clear();
        lines.clear();
        HeadLines {
            text,
            lines,
            body: (0, 0),
        }
    }

    /// Keeps `v` as the body (see `body`).
    pub(super) fn put_body(&mut self, v: &[u8]) {
        self.body = self.put(v);
    }

    /// The body kept here (empty when none).
    pub(super) fn body(&self) -> &[u8] {
        &self.text[self.body.0 as usize..self.body.1 as usize]
    }

    /// The body kept here, as its own buffer (`None` when none), and no
    /// longer here.
    pub(super) fn take_body(&mut self) -> Option<Bytes> {
        let b = (self.body.0 != self.body.1).then(|| Bytes::copy_from_slice(self.body()));
        self.body = (0, 0);
        b
    }

    /// The buffers back, for the pool they came from.
    pub fn into_parts(self) -> (Vec<u8>, Vec<HeadLine>) {
        (self.text, self.lines)
    }

    fn put(&mut self, v: &[u8]) -> (u32, u32) {
        if self.text.capacity() == 0 {
            self.text.reserve(128);
        }
        let at = self.text.len() as u32;
        put(&mut self.text, v);
        (at, at + v.len() as u32)
    }

    pub(super) fn slice(&self, r: (u32, u32)) -> &[u8] {
        &self.text[r.0 as usize..r.1 as usize]
    }

    /// Header name `name` in Title-Case (as hyper writes it), at the end
    /// of the buffer; `None` when it cannot be a header name (empty, or a
    /// byte no name may hold). A name spelled as one seen before is copied
    /// from `NAME_MEMO`.
    pub(super) fn name(&mut self, name: &[u8]) -> Option<PendingName> {
        if name.is_empty() || name.len() > MEMO_NAME_MAX {
            return self.spell(name);
        }
        let slot = memo_slot(name);
        let hit = NAME_MEMO.with(|memo| {
            let m = &memo[slot];
            if usize::from(m.len) != name.len() || !eq_prefix(name, &m.spelled) {
                return None;
            }
            if self.text.capacity() - self.text.len() < name.len() + 8 {
                self.text.reserve((name.len() + 8).max(128));
            }
            let at = self.text.len();
            let dst = self.text.spare_capacity_mut().as_mut_ptr().cast::<u8>();
            let mut i = 0;
            while i < name.len() {
                let w = m.title[i..].first_chunk::<8>().copied().unwrap_or_default();
                // SAFETY: `i < name.len()` and `i + 8 <= name.len() + 8`
                // bytes of spare capacity (reserved above) start at `dst`.
                unsafe { dst.add(i).cast::<[u8; 8]>().write_unaligned(w) };
                i += 8;
            }
            // SAFETY: the loop wrote the `name.len()` bytes after `at`
            // (and a few more, not counted), within the capacity.
            unsafe { self.text.set_len(at + name.len()) };
            Some(PendingName {
                at: (at as u32, (at + name.len()) as u32),
                key: m.key,
                id: m.id,
            })
        });
        if let Some(Some(n)) = hit {
            return Some(n);
        }
        let n = self.spell(name)?;
        let mut m = Memo {
            len: name.len() as u8,
            id: n.id,
            key: n.key,
            spelled: [0; MEMO_NAME_MAX],
            title: [0; MEMO_NAME_MAX],
        };
        m.spelled[..name.len()].copy_from_slice(name);
        m.title[..name.len()].copy_from_slice(self.slice(n.at));
        NAME_MEMO.with(|memo| memo[slot] = m);
        Some(n)
    }

    /// `name` without `NAME_MEMO`.
    fn spell(&mut self, name: &[u8]) -> Option<PendingName> {
        if name.is_empty() {
            return None;
        }
        // (Room for a last word of eight bytes, of which fewer count.)
        if self.text.capacity() - self.text.len() < name.len() + 8 {
            self.text.reserve((name.len() + 8).max(128));
        }
        let at = self.text.len();
        let dst = self.text.spare_capacity_mut().as_mut_ptr().cast::<u8>();
        let mut all = 0u8;
        // Eight bytes at a time while they are letters, digits, `-`.
        let mut done = 0;
        let mut up = true;
        while done < name.len() {
            let rest = &name[done..];
            let (x, n) = match rest.first_chunk::<8>() {
                Some(w) => (u64::from_le_bytes(*w), 8),
                None => {
                    let mut x = 0u64;
                    for (i, &b) in rest.iter().enumerate() {
                        x |= u64::from(b) << (8 * i);
                    }
                    (x, rest.len())
                }
            };
            let Some((t, dash)) = title8(x, n, up) else {
                break;
            };
            // SAFETY: `done + 8 <= name.len() + 8` bytes of spare capacity
            // (reserved above) start at `dst`: eight bytes (of which `n`
            // count) go at `done`.
            unsafe { dst.add(done).cast::<u64>().write_unaligned(t.to_le()) };
            done += n;
            up = dash;
        }
        // Byte by byte from the first word that is not (an odd name's
        // bytes, or one that cannot be in a name).
        if done < name.len() {
            let spare = &mut self.text.spare_capacity_mut()[..name.len()];
            let mut up = usize::from(up);
            for (d, &b) in spare[done..].iter_mut().zip(&name[done..]) {
                let t = NAME_BYTES[up][b as usize];
                if t == 0 {
                    return None;
                }
                all |= t;
                up = usize::from(t == b'-');
                d.write(t & 0x7f);
            }
        }
        // SAFETY: the loops above wrote all `name.len()` bytes after `at`
        // (they return before the length changes otherwise), within the
        // capacity reserved above.
        unsafe { self.text.set_len(at + name.len()) };
        let spelled = &self.text[at..];
        let id = if all & 0x80 != 0 {
            name_id::ODD
        } else {
            name_id(spelled)
        };
        Some(PendingName {
            at: (at as u32, (at + name.len()) as u32),
            key: name_key(spelled),
            id,
        })
    }

    /// Forgets the name `name` wrote (the header was refused).
    pub(super) fn drop_name(&mut self, n: PendingName) {
        self.text.truncate(n.at.0 as usize);
    }

    /// The lines of name `n`: see [`same_name`].
    fn same(&self, l: &HeadLine, n: PendingName) -> bool {
        same_name(&self.text, l, n)
    }

    /// Sets (`replace`: in the place of its first value, the others go)
    /// or adds (after its last value) the header of the name `name` wrote.
    /// Each line is whole in the buffer (`Name: value\r\n`, written
    /// after its name): the head writer copies it at once (`write_head`).
    pub(super) fn put_line(&mut self, n: PendingName, v: &[u8], replace: bool) {
        let found = if replace {
            self.lines.iter().position(|l| self.same(l, n))
        } else {
            self.lines.iter().rposition(|l| self.same(l, n))
        };
        // `: `, the value, CR LF: room made once.
        if self.text.capacity() - self.text.len() < v.len() + 4 {
            self.text.reserve((v.len() + 4).max(128));
        }
        let at = self.text.len();
        let dst = self.text.spare_capacity_mut().as_mut_ptr().cast::<u8>();
        // SAFETY: `v.len() + 4` bytes of spare capacity (made above) start
        // at `dst`; `v` cannot overlap them (borrowed shared while `text` is
        // borrowed mutably); all of them are written before the length
        // covers them.
        unsafe {
            dst.cast::<[u8; 2]>().write_unaligned(*b": ");
            std::ptr::copy_nonoverlapping(v.as_ptr(), dst.add(2), v.len());
            dst.add(2 + v.len())
                .cast::<[u8; 2]>()
                .write_unaligned(*b"\r\n");
            self.text.set_len(at + v.len() + 4);
        }
        let value = ((at + 2) as u32, (at + 2 + v.len()) as u32);
        let line = HeadLine {
            name: n.at,
            value,
            key: n.key,
            id: n.id,
        };
        match found {
            Some(i) if replace => {
                self.lines[i] = line;
                // (Values of a name are together: the others follow it.)
                let mut end = i + 1;
                while self.lines.get(end).is_some_and(|l| self.same(l, n)) {
                    end += 1;
                }
                if end > i + 1 {
                    self.lines.drain(i + 1..end);
                }
            }
            Some(i) => self.lines.insert(i + 1, line),
            None => {
                if self.lines.capacity() == 0 {
                    self.lines.reserve(8);
                }
                self.lines.push(line);
            }
        }
    }

    /// Takes out every line of the name `name` wrote (and that name).
    pub(super) fn remove_name(&mut self, n: PendingName) {
        let (text, lines) = (&self.text, &mut self.lines);
        lines.retain(|l| !same_name(text, l, n));
        self.text.truncate(n.at.0 as usize);
    }

    /// Sets header `name` (in Title-Case, a valid one) to `v` alone.
    pub(super) fn insert(&mut self, name: &[u8], v: &[u8]) {
        if let Some(n) = self.name(name) {
            self.put_line(n, v, true);
        }
    }

    /// A line's name (Title-Case).
    pub(super) fn name_of(&self, l: &HeadLine) -> &[u8] {
        self.slice(l.name)
    }

    /// A line's value.
    pub(super) fn value_of(&self, l: &HeadLine) -> &[u8] {
        self.slice(l.value)
    }

    /// Gives line `i` and the others of its name name `to`, a stand-in
    /// without an id of its own (`Responder`'s `build`): each line again,
    /// whole, at the end of the buffer.
    pub(super) fn rename_line(&mut self, i: usize, to: &[u8]) {
        let from = self.lines[i];
        let from = PendingName {
            at: from.name,
            key: from.key,
            id: from.id,
        };
        for j in 0..self.lines.len() {
            let l = self.lines[j];
            if !self.same(&l, from) {
                continue;
            }
            let name = self.put(to);
            put(&mut self.text, b": ");
            let start = self.text.len();
            self.text
                .extend_from_within(l.value.0 as usize..l.value.1 as usize);
            let value = (start as u32, self.text.len() as u32);
            put(&mut self.text, b"\r\n");
            self.lines[j] = HeadLine {
                name,
                value,
                key: name_key(to),
                id: name_id::OTHER,
            };
        }
    }

    pub(super) fn has(&self, id: u8) -> bool {
        self.lines.iter().any(|l| l.id == id)
    }

    /// The first value of the header whose id is `id`.
    pub(super) fn get(&self, id: u8) -> Option<&[u8]> {
        self.lines
            .iter()
            .find(|l| l.id == id)
            .map(|l| self.slice(l.value))
    }

    /// Every line, in order: (name in Title-Case, value).
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.lines
            .iter()
            .map(|l| (self.slice(l.name), self.slice(l.value)))
    }

    /// Writes every line as the fast path's head writer does
    /// (`Name: value\r\n`), noting a `Connection` value in `keep` (one
    /// value, `keep-alive` or `close`) and a `Date` in `wrote_date`; `None`
    /// when hyper must write the head (a framing header, another
    /// `Connection`).
    pub(super) fn write_head(
        &self,
        out: &mut Vec<u8>,
        keep: &mut Option<bool>,
        wrote_date: &mut bool,
    ) -> Option<()> {
        for l in &self.lines {
            let value = self.slice(l.value);
            match l.id {
                name_id::CONNECTION => {
                    if keep.is_some() {
                        return None;
                    }
                    *keep = Some(if value.eq_ignore_ascii_case(b"keep-alive") {
                        true
                    } else if value.eq_ignore_ascii_case(b"close") {
                        false
                    } else {
                        return None;
                    });
                }
                name_id::CONTENT_LENGTH | name_id::TRANSFER_ENCODING => return None,
                name_id::DATE => *wrote_date = true,
                _ => {}
            }
            // (The line is whole in `text`: see `put_line`.)
            put(out, self.slice((l.name.0, l.value.1 + 2)));
        }
        Some(())
    }

    /// Appends every line to `h` (a `HeaderMap` for hyper). A line whose
    /// name `http` cannot hold (an odd name `build` gave no stand-in) is
    /// left out.
    pub(super) fn into_map(self, h: &mut HeaderMap) {
        let text = Bytes::from(self.text);
        for l in self.lines {
            let Some(n) = header_name(&text[l.name.0 as usize..l.name.1 as usize]) else {
                continue;
            };
            // SAFETY: `Responder::header_bytes` put only values its
            // `valid_value` passed: the bytes `HeaderValue` allows.
            let v = unsafe {
                HeaderValue::from_maybe_shared_unchecked(
                    text.slice(l.value.0 as usize..l.value.1 as usize),
                )
            };
            h.append(n, v);
        }
    }
}

/// Most names a process parses are kept (the hyper path's `into_map`).
const NAME_CACHE_MAX: usize = 64;

/// Header names (Title-Case) and what each parsed to.
type NameCache = Vec<(Box<[u8]>, HeaderName)>;

/// Header names as `HeadLines` keeps them, each parsed once for hyper's
/// map. A script sets the same few names on every response; parsing one
/// (lower-casing, the standard-name match, an allocation for a
/// non-standard name) costs several times a look-up here. Past
/// `NAME_CACHE_MAX` distinct names, new ones are parsed every time.
/// (Process-wide behind a flag, as `NAME_MEMO`: cheaper than a
/// thread-local's look-up in a shared object, and than a lock.)
static NAME_CACHE: Flagged<NameCache> = Flagged::new(Vec::new());

/// `HeaderName::from_bytes`, through `NAME_CACHE`; `None` when invalid.
pub(super) fn header_name(name: &[u8]) -> Option<HeaderName> {
    // (Length and first byte before the bytes: `Last-Modified` and
    // `Accept-Ranges` are as long.)
    let hit = NAME_CACHE.with(|cache| {
        cache
            .iter()
            .find(|(k, _)| k.len() == name.len() && k.first() == name.first() && **k == *name)
            .map(|(_, n)| n.clone())
    });
    if let Some(Some(n)) = hit {
        return Some(n);
    }
    let n = HeaderName::from_bytes(name).ok()?;
    NAME_CACHE.with(|cache| {
        if cache.len() < NAME_CACHE_MAX {
            cache.push((name.into(), n.clone()));
        }
    });
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_case_as_hyper() {
        let mut out = Vec::new();
        title_case_into(&mut out, b"content-type");
        title_case_into(&mut out, b"x-a--b");
        title_case_into(&mut out, b"WWW-AUTHENTICATE");
        assert_eq!(out, b"Content-TypeX-A--BWww-Authenticate");
        // Byte by byte.
        let slow = |name: &[u8]| {
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
                .collect::<Vec<u8>>()
        };
        let names: [&[u8]; 14] = [
            b"a",
            b"-",
            b"1abc-",
            b"abcdefg-h",
            b"abcdefgh-ijklmnop-q",
            b"-a-b-c-d-e-f-g-h-i",
            b"x-`{@[~|_^.!#$%&'*+-z",
            b"accept-ranges",
            b"e-tag",
            b"zzzzzzz-zaaaaaaa-a",
            b"a0-9z-",
            b"",
            b"X-FORWARDED-FOR",
            b"@AZ[`az{-@-A-Z-[-`-a-z-{",
        ];
        for name in names {
            let mut out = b"X: ".to_vec();
            title_case_into(&mut out, name);
            assert_eq!(&out[3..], slow(name), "{:?}", String::from_utf8_lossy(name));
        }
        // Every byte value, after a `-` and not, at each place in a word.
        for c in 0..=255u8 {
            for at in 0..9 {
                let mut name = vec![b'Q'; at];
                name.extend_from_slice(&[b'-', c, b'a', c, b'-']);
                let mut out = Vec::new();
                title_case_into(&mut out, &name);
                assert_eq!(out, slow(&name));
            }
        }
    }
}
