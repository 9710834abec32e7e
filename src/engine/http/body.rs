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
        trailers: Option<http::HeaderMap>,
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
                None => trailers.take().map(|t| Ok(Frame::trailers(t))),
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

/// The script's response headers in the order it set them: names parsed,
/// values side by side in one buffer (no allocation per value). Values of a
/// name stay together, as in a `HeaderMap` (`append` puts a value after
/// the last one of its name); `remove` keeps the others' order, as
/// Swoole's header array does.
#[derive(Default, Debug)]
pub struct HeadLines {
    text: Vec<u8>,
    pub(super) lines: Vec<(HeaderName, u32, u32)>,
    /// A small body kept in `text` after the values (the fast path's
    /// `end()`: no buffer of its own); empty when none.
    body: (u32, u32),
}

impl HeadLines {
    /// Lines kept in `text` and `lines` (emptied buffers, from a pool).
    pub fn from_parts(mut text: Vec<u8>, mut lines: Vec<(HeaderName, u32, u32)>) -> HeadLines {
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
    pub fn into_parts(self) -> (Vec<u8>, Vec<(HeaderName, u32, u32)>) {
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

    /// Sets `n` to `v` alone: in the place of its first value, if any.
    pub(super) fn insert(&mut self, n: HeaderName, v: &[u8]) {
        let (a, b) = self.put(v);
        match self.lines.iter().position(|l| l.0 == n) {
            Some(i) => {
                self.lines[i].1 = a;
                self.lines[i].2 = b;
                // (Values of a name are together: the others follow it.)
                while self.lines.get(i + 1).is_some_and(|l| l.0 == n) {
                    self.lines.remove(i + 1);
                }
            }
            None => {
                if self.lines.capacity() == 0 {
                    self.lines.reserve(8);
                }
                self.lines.push((n, a, b));
            }
        }
    }

    /// Adds `v` to `n`'s values (after the last one).
    pub(super) fn append(&mut self, n: HeaderName, v: &[u8]) {
        let (a, b) = self.put(v);
        match self.lines.iter().rposition(|l| l.0 == n) {
            Some(i) => self.lines.insert(i + 1, (n, a, b)),
            None => self.lines.push((n, a, b)),
        }
    }

    pub(super) fn remove(&mut self, n: &HeaderName) {
        self.lines.retain(|l| l.0 != *n);
    }

    /// Gives `n`'s lines the name `to`, in their places.
    pub(super) fn rename(&mut self, n: &HeaderName, to: &HeaderName) {
        for l in self.lines.iter_mut().filter(|l| l.0 == *n) {
            l.0 = to.clone();
        }
    }

    pub(super) fn contains(&self, n: &HeaderName) -> bool {
        self.lines.iter().any(|l| l.0 == *n)
    }

    /// The first value of `n`.
    pub(super) fn get(&self, n: &HeaderName) -> Option<&[u8]> {
        self.lines
            .iter()
            .find(|l| l.0 == *n)
            .map(|l| &self.text[l.1 as usize..l.2 as usize])
    }

    /// Every line, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&HeaderName, &[u8])> {
        self.lines
            .iter()
            .map(|l| (&l.0, &self.text[l.1 as usize..l.2 as usize]))
    }

    /// Appends every line to `h` (a `HeaderMap` for hyper).
    pub(super) fn into_map(self, h: &mut HeaderMap) {
        let text = Bytes::from(self.text);
        for (n, a, b) in self.lines {
            // SAFETY: `Responder::header_bytes` put only values its
            // `valid_value` passed: the bytes `HeaderValue` allows.
            let v = unsafe {
                HeaderValue::from_maybe_shared_unchecked(text.slice(a as usize..b as usize))
            };
            h.append(n, v);
        }
    }
}
