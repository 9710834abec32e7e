//! `Response::ping()` and `Response::goaway()` on an HTTP/2 connection:
//! hyper has no call that sends a PING or a GOAWAY on demand, so the
//! connection's byte stream (inside TLS) goes through [`H2Tap`], which
//! follows the frame boundaries both ways and slips a queued frame in
//! between two of hyper's outgoing frames.
//!
//! The tap reads frame headers only: incoming, for the highest stream id
//! (GOAWAY's last-stream-id); outgoing, to know when a frame ends. A frame
//! queued while hyper writes nothing is flushed from the read side, which
//! hyper always polls. The PING ACK that comes back is ignored by h2 (a
//! pong it never asked for).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

const PREFACE_LEN: usize = 24;
const FRAME_HEAD: usize = 9;
const TYPE_PING: u8 = 6;
const TYPE_GOAWAY: u8 = 7;
/// Our PING payload (neither of h2's own, so its pong is simply dropped).
pub const PING_PAYLOAD: [u8; 8] = *b"rswoole\x01";

/// Where a direction of the stream is: inside a frame (`left` bytes to
/// go) or collecting the next frame header.
#[derive(Default)]
struct Framer {
    skip: usize,
    head: Vec<u8>,
    left: usize,
}

impl Framer {
    /// Feeds bytes; calls `on_head` with each complete frame header.
    fn feed(&mut self, mut b: &[u8], mut on_head: impl FnMut(&[u8])) {
        while !b.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(b.len());
                self.skip -= n;
                b = &b[n..];
                continue;
            }
            if self.left > 0 {
                let n = self.left.min(b.len());
                self.left -= n;
                b = &b[n..];
                continue;
            }
            let need = FRAME_HEAD - self.head.len();
            let n = need.min(b.len());
            self.head.extend_from_slice(&b[..n]);
            b = &b[n..];
            if self.head.len() == FRAME_HEAD {
                let h = std::mem::take(&mut self.head);
                self.left =
                    (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2]);
                on_head(&h);
            }
        }
    }

    fn at_boundary(&self) -> bool {
        self.skip == 0 && self.left == 0 && self.head.is_empty()
    }
}

/// The control side of one HTTP/2 connection, shared with the responses.
#[derive(Default)]
pub struct Ctl {
    queued: RefCell<Vec<u8>>,
    waker: RefCell<Option<Waker>>,
    last_stream: Cell<u32>,
}

fn frame(ty: u8, payload: &[u8]) -> Vec<u8> {
    let len = payload.len() as u32;
    let mut f = Vec::with_capacity(FRAME_HEAD + payload.len());
    f.extend_from_slice(&len.to_be_bytes()[1..]);
    f.extend_from_slice(&[ty, 0, 0, 0, 0, 0]);
    f.extend_from_slice(payload);
    f
}

impl Ctl {
    fn queue(&self, f: Vec<u8>) {
        self.queued.borrow_mut().extend_from_slice(&f);
        if let Some(w) = self.waker.borrow().as_ref() {
            w.wake_by_ref();
        }
    }

    /// Queues a PING.
    pub fn ping(&self) {
        self.queue(frame(TYPE_PING, &PING_PAYLOAD));
    }

    /// Queues a GOAWAY naming the highest stream the client opened.
    pub fn goaway(&self, code: u32, debug: &[u8]) {
        let mut p = Vec::with_capacity(8 + debug.len());
        p.extend_from_slice(&self.last_stream.get().to_be_bytes());
        p.extend_from_slice(&code.to_be_bytes());
        p.extend_from_slice(debug);
        self.queue(frame(TYPE_GOAWAY, &p));
    }
}

thread_local! {
    /// This worker's HTTP/2 connections: id -> control. Boxed: the
    /// dlopen()ed extension has little static TLS room.
    static CTLS: Box<RefCell<HashMap<i64, Rc<Ctl>>>> = Box::new(RefCell::new(HashMap::new()));
}

/// Keeps `fd`'s control findable by [`get`] until it drops.
pub struct Registration(i64);

impl Drop for Registration {
    fn drop(&mut self) {
        CTLS.with(|t| t.borrow_mut().remove(&self.0));
    }
}

/// Makes `ctl` connection `fd`'s control, for as long as the result lives.
pub fn register(fd: i64, ctl: Rc<Ctl>) -> Registration {
    CTLS.with(|t| t.borrow_mut().insert(fd, ctl));
    Registration(fd)
}

/// The control of connection `fd`, when it speaks HTTP/2.
pub fn get(fd: i64) -> Option<Rc<Ctl>> {
    CTLS.with(|t| t.borrow().get(&fd).cloned())
}

/// The stream wrapper; see the module comment.
pub struct H2Tap<T> {
    inner: T,
    ctl: Rc<Ctl>,
    rx: Framer,
    tx: Framer,
}

impl<T> H2Tap<T> {
    /// Wraps a connection's stream (the client's preface still unread).
    pub fn new(inner: T, ctl: Rc<Ctl>) -> Self {
        H2Tap {
            inner,
            ctl,
            rx: Framer {
                skip: PREFACE_LEN,
                ..Framer::default()
            },
            tx: Framer::default(),
        }
    }
}

impl<T: AsyncWrite + Unpin> H2Tap<T> {
    /// Writes queued control frames while hyper is between frames;
    /// `Ready` once nothing is left to write.
    fn push_queued(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !self.tx.at_boundary() {
            return Poll::Ready(Ok(()));
        }
        loop {
            let n = {
                let q = self.ctl.queued.borrow();
                if q.is_empty() {
                    return Poll::Ready(Ok(()));
                }
                match Pin::new(&mut self.inner).poll_write(cx, &q) {
                    Poll::Ready(Ok(n)) => n,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
            };
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.ctl.queued.borrow_mut().drain(..n);
            if self.ctl.queued.borrow().is_empty() {
                let _ = Pin::new(&mut self.inner).poll_flush(cx);
            }
        }
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncRead for H2Tap<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        *me.ctl.waker.borrow_mut() = Some(cx.waker().clone());
        // A write error shows on hyper's next write; Pending re-polls us.
        let _ = me.push_queued(cx);
        let before = buf.filled().len();
        let r = Pin::new(&mut me.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = r {
            let ctl = &me.ctl;
            me.rx.feed(&buf.filled()[before..], |h| {
                let sid = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
                if h[3] == 1 && sid > ctl.last_stream.get() {
                    ctl.last_stream.set(sid);
                }
            });
        }
        r
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncWrite for H2Tap<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        match me.push_queued(cx) {
            Poll::Ready(Ok(())) => {}
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            Poll::Pending => return Poll::Pending,
        }
        let r = Pin::new(&mut me.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = r {
            me.tx.feed(&buf[..n], |_| {});
        }
        r
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        match me.push_queued(cx) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        Pin::new(&mut me.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framer_follows_frames_split_anywhere() {
        let mut bytes = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        bytes.extend(frame(4, &[0; 6]));
        let mut h = frame(1, &[1, 2, 3]);
        h[5..9].copy_from_slice(&5u32.to_be_bytes());
        bytes.extend(h);
        let mut f = Framer {
            skip: PREFACE_LEN,
            ..Framer::default()
        };
        let mut seen = Vec::new();
        for chunk in bytes.chunks(5) {
            f.feed(chunk, |h| seen.push((h[3], h[8])));
        }
        assert_eq!(seen, vec![(4, 0), (1, 5)]);
        assert!(f.at_boundary());
    }

    #[test]
    fn goaway_frame_names_last_stream_and_code() {
        let c = Ctl::default();
        c.last_stream.set(7);
        c.goaway(2, b"bye");
        let q = c.queued.borrow();
        assert_eq!(&q[..9], &[0, 0, 11, TYPE_GOAWAY, 0, 0, 0, 0, 0]);
        assert_eq!(&q[9..17], &[0, 0, 0, 7, 0, 0, 0, 2]);
        assert_eq!(&q[17..], b"bye");
    }
}
