//! A connection's socket as the HTTP code reads and writes it (`Counted`:
//! byte counts, activity, bytes read ahead, what the drain must know) and
//! the switch that tells its task the script closed it (`Kill`). Shared by
//! hyper's side (`conn`) and the fast path (`fast`).

use std::cell::{Cell, RefCell};
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::engine::net::conns::{self, Conn};
use crate::engine::shared::stats;
use crate::engine::tls::NetStream;

/// The client socket, counting bytes for `stats()` and noting when data
/// last moved (for the heartbeat). Field 3 holds bytes already read from
/// the socket and not yet served (left by the fast path, or by hyper when
/// a drained connection's next request had begun): they are read first.
/// (`Send`, because hyper's upgrade hands the socket over as a `Send` box.)
pub(super) struct Counted(
    pub(super) NetStream,
    pub(super) conns::Activity,
    pub(super) IoFlags,
    pub(super) Bytes,
);

/// What the hand-back of an idle connection (`drive_h1`) needs to know of
/// the socket: whether hyper's write buffer is empty, and that hyper's
/// closing must not shut the socket down. Also the header names the next
/// response head must carry as spelled (`ExactNames`).
#[derive(Clone, Default)]
pub(super) struct IoFlags(Arc<IoShared>);

/// A header name as hyper writes it, and as it must go out.
type Respell = (Vec<u8>, Box<[u8]>);

#[derive(Default)]
struct IoShared {
    bits: std::sync::atomic::AtomicU8,
    exact: std::sync::Mutex<Vec<Respell>>,
}

impl IoFlags {
    /// Names wait in `exact` for the next head written.
    pub(super) const EXACT: u8 = 4;
    /// hyper's last call was a flush that completed: it only flushes the
    /// socket once its own write buffer is empty.
    pub(super) const FLUSHED: u8 = 1;
    /// `poll_shutdown` sends nothing: the connection goes to another worker.
    pub(super) const KEEP_OPEN: u8 = 2;

    pub(super) fn set(&self, bit: u8, on: bool) {
        if on {
            self.0.bits.fetch_or(bit, Ordering::Relaxed);
        } else {
            self.0.bits.fetch_and(!bit, Ordering::Relaxed);
        }
    }

    pub(super) fn has(&self, bit: u8) -> bool {
        self.0.bits.load(Ordering::Relaxed) & bit != 0
    }

    /// The next response head written carries `names` as spelled.
    pub(super) fn expect_exact(&self, names: &super::response::ExactNames) {
        if let Ok(mut e) = self.0.exact.lock() {
            let title = super::response::title_case;
            e.extend(names.0.iter().map(|n| (title(n), n.clone())));
            // An odd name is in the head as its stand-in.
            e.extend(
                names
                    .1
                    .iter()
                    .map(|(s, n)| (title(s.as_str().as_bytes()), n.clone())),
            );
        }
        self.set(Self::EXACT, true);
    }

    /// `bufs` with the waiting names written as spelled, when they hold a
    /// response head (`None`: write them unchanged). The spelling differs
    /// in case only, or replaces a stand-in of the same length, so every
    /// byte keeps its place and a short write means the same in both.
    pub(super) fn patch(&self, bufs: &[&[u8]]) -> Option<Vec<u8>> {
        if !bufs.first().is_some_and(|b| b.starts_with(b"HTTP/1.")) {
            return None;
        }
        let names = self
            .0
            .exact
            .lock()
            .ok()
            .map(|mut e| std::mem::take(&mut *e))?;
        self.set(Self::EXACT, false);
        let mut out: Vec<u8> = bufs.concat();
        let end = out
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or(out.len());
        for (title, name) in names {
            let mut at = 0;
            while let Some(i) = out[at..end].windows(title.len() + 3).position(|w| {
                w[..2] == *b"\r\n" && w[2..2 + title.len()] == *title && w[2 + title.len()] == b':'
            }) {
                let start = at + i + 2;
                out[start..start + name.len()].copy_from_slice(&name);
                at = start + name.len();
            }
        }
        Some(out)
    }
}

/// Marks `s` not readable after a read that found less than it asked for,
/// as tokio's own `poll_read` does on epoll (tokio-rs/tokio#5866): the
/// socket's queue was empty then, and bytes arriving after it raise a new
/// edge. Else its readiness stays set, and the next wait for a request
/// costs a `recvfrom` that finds nothing (bench/RESULTS.md: 1.5 `recvfrom`
/// per request under wrk before, 1.0 after). The worker's runtime has one
/// thread, so no event can reach the readiness between the read and this;
/// and `try_io` clears only the readiness it saw (its tick).
fn forget_readable(s: &tokio::net::TcpStream) {
    let _ = s.try_io(tokio::io::Interest::READABLE, || {
        Err::<(), _>(io::ErrorKind::WouldBlock.into())
    });
}

impl Counted {
    /// Clear-text TCP (the fast path does not serve TLS).
    pub(super) fn is_plain(&self) -> bool {
        matches!(self.0, NetStream::Plain(_))
    }

    /// Ready once a read would find data (bytes read ahead count). The
    /// socket's own readiness slot, as `poll_read` uses: no waiter list.
    pub(super) fn poll_readable(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !self.3.is_empty() {
            return Poll::Ready(Ok(()));
        }
        match &self.0 {
            NetStream::Plain(s) => s.poll_read_ready(cx),
            // (The fast path serves clear text only.)
            NetStream::Tls(_) => Poll::Ready(Ok(())),
        }
    }

    /// Reads what the socket has into `buf` now, without waiting and
    /// without registering for a wake-up (`poll_readable` said it is
    /// readable): as `poll_read` reads (bytes read ahead first, the counts,
    /// the activity clock), for one readiness look less. `None` when it
    /// would block (or the stream is not plain TCP): the caller reads with
    /// `AsyncRead` then.
    pub(super) fn try_read_now(&mut self, buf: &mut bytes::BytesMut) -> Option<io::Result<usize>> {
        if !self.3.is_empty() {
            let n = self.3.len().min(buf.capacity() - buf.len());
            if n == 0 {
                return None;
            }
            let head = self.3.split_to(n);
            buf.extend_from_slice(&head);
            return Some(Ok(n));
        }
        let NetStream::Plain(s) = &self.0 else {
            return None;
        };
        let room = buf.capacity() - buf.len();
        match s.try_read_buf(buf) {
            Ok(n) => {
                if n > 0 {
                    stats::on_recv(n);
                    self.1.set();
                }
                if 0 < n && n < room {
                    forget_readable(s);
                }
                Some(Ok(n))
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => None,
            Err(e) => Some(Err(e)),
        }
    }

    /// Writes what the socket takes of `buf` now, without waiting: the
    /// count (0 when it would block, or when the stream is not plain TCP or
    /// names wait to be patched in: the caller then writes the rest with
    /// `AsyncWrite`).
    pub(super) fn try_write_now(&mut self, buf: &[u8]) -> io::Result<usize> {
        let NetStream::Plain(s) = &self.0 else {
            return Ok(0);
        };
        if self.2.has(IoFlags::EXACT) {
            return Ok(0);
        }
        let mut done = 0;
        while done < buf.len() {
            match s.try_write(&buf[done..]) {
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if done > 0 {
            self.wrote(&Poll::Ready(Ok(done)));
        }
        Ok(done)
    }

    /// Written bytes are all in the kernel (what `drive_h1` asks before it
    /// hands a connection back): a TCP socket's flush does nothing more.
    pub(super) fn mark_flushed(&self) {
        self.2.set(IoFlags::FLUSHED, true);
    }
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if !self.3.is_empty() {
            let n = self.3.len().min(buf.remaining());
            let head = self.3.split_to(n);
            buf.put_slice(&head);
            return Poll::Ready(Ok(()));
        }
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

impl Counted {
    /// After a write: the bytes counted, the activity clock set, and the
    /// stream no longer flushed.
    fn wrote(&mut self, res: &Poll<io::Result<usize>>) {
        if let Poll::Ready(Ok(n)) = res {
            stats::on_send(*n);
            self.1.set();
            self.2.set(IoFlags::FLUSHED, false);
        }
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.2.has(IoFlags::EXACT) {
            if let Some(out) = self.2.patch(&[buf]) {
                return self.poll_write(cx, &out);
            }
        }
        let res = Pin::new(&mut self.0).poll_write(cx, buf);
        self.wrote(&res);
        res
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.2.has(IoFlags::EXACT) {
            let slices: Vec<&[u8]> = bufs.iter().map(|b| &b[..]).collect();
            if let Some(out) = self.2.patch(&slices) {
                return self.poll_write(cx, &out);
            }
        }
        let res = Pin::new(&mut self.0).poll_write_vectored(cx, bufs);
        self.wrote(&res);
        res
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let res = Pin::new(&mut self.0).poll_flush(cx);
        if let Poll::Ready(Ok(())) = res {
            self.2.set(IoFlags::FLUSHED, true);
        }
        res
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.2.has(IoFlags::KEEP_OPEN) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// What tells the connection's task that the script closed it
/// (`$server->close($request->fd)`, the heartbeat): the connection's
/// command queue in the registry (`conns`), where only `Close` arrives.
pub(super) struct Kill {
    pub(super) conn: Rc<Conn>,
    pub(super) rx: RefCell<conns::Receiver>,
    /// The queue has this task's waker: until a close is asked (which
    /// sets `conn.is_closing()` before it sends), polling it again would
    /// only register the same waker again, on every wake-up of the task.
    pub(super) armed: Cell<bool>,
    /// HTTP/1: a response the script ended before `close()` is still
    /// written (`Conn::lingers`); then the connection closes.
    pub(super) h1: Cell<bool>,
}

impl Kill {
    /// Resolves at the next command (a close); for a close that lingers
    /// (`lingers`), once its time is up: the connection ends after the
    /// response it writes meanwhile (which says `Connection: close`).
    pub(super) async fn notified(&self) {
        loop {
            if let Some(until) = self.linger_until() {
                tokio::time::sleep_until(until).await;
                return;
            }
            std::future::poll_fn(|cx| {
                if self.armed.get() && !self.conn.is_closing() {
                    return std::task::Poll::Pending;
                }
                match self.rx.borrow_mut().poll_recv(cx) {
                    std::task::Poll::Ready(_) => std::task::Poll::Ready(()),
                    std::task::Poll::Pending => {
                        self.armed.set(true);
                        std::task::Poll::Pending
                    }
                }
            })
            .await;
            if !self.lingers() {
                return;
            }
        }
    }

    /// A close was asked.
    pub(super) fn is_set(&self) -> bool {
        self.conn.is_closing()
    }

    /// A close was asked after the script ended its response: that
    /// response is written, then the connection closes.
    pub(super) fn lingers(&self) -> bool {
        self.linger_until().is_some()
    }

    fn linger_until(&self) -> Option<tokio::time::Instant> {
        self.conn.lingers().filter(|_| self.h1.get())
    }

    /// A close was asked: the answer in progress is not written.
    pub(super) fn drops_answer(&self) -> bool {
        self.is_set() && !self.lingers()
    }
}
