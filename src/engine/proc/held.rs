//! PROCESS mode: the master's own copy of every connection it hands to a
//! worker, so that the master can still answer a connection whose worker is
//! gone (Laravel Octane's watchdog SIGKILLs a worker stuck past
//! `max_execution_time`, then answers `408` from the master with
//! `Swoole\Http\Response::create($server, $fd)`, as Swoole's master, which
//! owns every connection, can).
//!
//! Both ends of a connection's life are explicit, because two processes now
//! hold the same socket and closing one copy sends nothing to the client:
//! - the worker keeps a duplicate of each connection it takes ([`adopt`]) and,
//!   when the connection ends (`session::close`, the one place every protocol
//!   ends a connection), shuts the socket down ([`release`]): the client gets
//!   its FIN whoever else still holds the descriptor;
//! - the master watches its copies with `EPOLLRDHUP` only (never `EPOLLIN`,
//!   so requests wake nothing here) and drops a copy once the socket is shut
//!   down or the client went away. It also watches each worker's pidfd: the
//!   connections of a worker that died are shut down after [`GRACE`] (what
//!   the client saw before the master kept copies, one second later), unless
//!   the master answered them first ([`take`]).
//!
//! Keys are `(port index, client address)`: unique among open connections,
//! and what the session table records for every connection, so the master
//! finds a worker's session id's socket without asking the worker.

use std::cell::RefCell;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
use nix::sys::socket::{shutdown, Shutdown};

/// How long the master keeps the connections of a worker that died before
/// it closes them.
pub const GRACE: Duration = Duration::from_secs(1);
/// Epoll tokens at or above this are pidfds (below: connection copies).
const PID_TOKEN: u64 = 1 << 40;

type Key = (usize, SocketAddr);

struct Conn {
    sock: OwnedFd,
    /// The worker process that took it.
    pid: i32,
}

#[derive(Default)]
struct Inner {
    conns: HashMap<Key, Conn>,
    /// Copy descriptor -> key (the epoll token of a copy is its fd).
    keys: HashMap<RawFd, Key>,
    /// pidfd -> (worker pid, the pidfd).
    pidfds: HashMap<RawFd, (i32, OwnedFd)>,
    /// Workers that died, and when the master learnt it.
    dead: Vec<(i32, Instant)>,
}

struct Held {
    epoll: Epoll,
    inner: Mutex<Inner>,
}

static HELD: OnceLock<Held> = OnceLock::new();

/// Starts keeping copies (the PROCESS-mode master, once its threads may
/// exist): the epoll set and the thread that drops finished copies.
pub fn start() -> std::io::Result<()> {
    let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC).map_err(std::io::Error::from)?;
    if HELD
        .set(Held {
            epoll,
            inner: Mutex::new(Inner::default()),
        })
        .is_err()
    {
        return Ok(());
    }
    std::thread::Builder::new()
        .name("rswoole-held".into())
        .spawn(watch_loop)
        .map(|_| ())
}

/// Whether the master keeps copies (PROCESS mode, after [`start`]).
pub fn active() -> bool {
    HELD.get().is_some()
}

/// The master handed `sock` (its own copy) to worker `pid`: keep it.
pub fn keep(index: usize, peer: SocketAddr, pid: i32, sock: OwnedFd) {
    let Some(h) = HELD.get() else { return };
    let fd = sock.as_raw_fd();
    let ev = EpollEvent::new(EpollFlags::EPOLLRDHUP, fd as u64);
    if h.epoll.add(&sock, ev).is_err() {
        return; // dropped: behaves as before copies were kept
    }
    if let Ok(mut g) = h.inner.lock() {
        if let Some(old) = g.conns.insert((index, peer), Conn { sock, pid }) {
            // A stale copy under the same address: its socket is long done.
            let _ = h.epoll.delete(&old.sock);
            g.keys.remove(&old.sock.as_raw_fd());
        }
        g.keys.insert(fd, (index, peer));
    }
}

/// A worker said hello: learn when it dies (a pidfd turns readable).
pub fn watch_worker(pid: i32) {
    let Some(h) = HELD.get() else { return };
    // SAFETY: pidfd_open(2) with a pid and no flags; it returns a new
    // descriptor or -1.
    let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let Ok(raw) = RawFd::try_from(raw) else {
        return;
    };
    if raw < 0 {
        return;
    }
    // SAFETY: pidfd_open returned a new descriptor nothing else owns.
    let pidfd = unsafe { OwnedFd::from_raw_fd(raw) };
    let ev = EpollEvent::new(EpollFlags::EPOLLIN, PID_TOKEN | raw as u64);
    if h.epoll.add(&pidfd, ev).is_ok() {
        if let Ok(mut g) = h.inner.lock() {
            g.pidfds.insert(raw, (pid, pidfd));
        }
    }
}

/// The master's copy of a connection, taken out of the set: the caller
/// answers on it and closes it (`Response::create()` in the master).
pub fn take(index: usize, peer: SocketAddr) -> Option<OwnedFd> {
    let h = HELD.get()?;
    let mut g = h.inner.lock().ok()?;
    let c = g.conns.remove(&(index, peer))?;
    g.keys.remove(&c.sock.as_raw_fd());
    let _ = h.epoll.delete(&c.sock);
    Some(c.sock)
}

/// Drops the copies whose sockets are done, and the connections of workers
/// that died more than [`GRACE`] ago.
fn watch_loop() {
    let Some(h) = HELD.get() else { return };
    let mut events = vec![EpollEvent::empty(); 64];
    loop {
        let n = match h.epoll.wait(&mut events, EpollTimeout::from(200u16)) {
            Ok(n) => n,
            Err(nix::errno::Errno::EINTR) => 0,
            Err(e) => {
                crate::rlog!(Warning, "held connections: epoll_wait: {e}");
                std::thread::sleep(Duration::from_millis(200));
                0
            }
        };
        let Ok(mut g) = h.inner.lock() else { return };
        for ev in &events[..n] {
            let token = ev.data();
            if token >= PID_TOKEN {
                let raw = (token - PID_TOKEN) as RawFd;
                if let Some((pid, pidfd)) = g.pidfds.remove(&raw) {
                    let _ = h.epoll.delete(&pidfd);
                    g.dead.push((pid, Instant::now()));
                }
            } else if let Some(key) = g.keys.remove(&(token as RawFd)) {
                if let Some(c) = g.conns.remove(&key) {
                    let _ = h.epoll.delete(&c.sock);
                }
            }
        }
        let now = Instant::now();
        let expired: Vec<i32> = g
            .dead
            .iter()
            .filter(|(_, t)| now.duration_since(*t) >= GRACE)
            .map(|(p, _)| *p)
            .collect();
        if expired.is_empty() {
            continue;
        }
        g.dead.retain(|(p, _)| !expired.contains(p));
        let gone: Vec<Key> = g
            .conns
            .iter()
            .filter(|(_, c)| expired.contains(&c.pid))
            .map(|(k, _)| *k)
            .collect();
        for key in gone {
            if let Some(c) = g.conns.remove(&key) {
                g.keys.remove(&c.sock.as_raw_fd());
                let _ = h.epoll.delete(&c.sock);
                let _ = shutdown(c.sock.as_raw_fd(), Shutdown::Both);
            }
        }
    }
}

/// Writes the response a master-made `Swoole\Http\Response` produces on
/// `sock` (a copy [`take`] returned), then ends the connection: the worker
/// that read the request is gone, so nothing else may follow on it. Frees
/// session `fd` too (its worker died without doing so).
pub async fn answer(head: crate::engine::http::response::HeadReceiver, sock: OwnedFd, fd: i64) {
    use tokio::io::AsyncWriteExt;
    let raw = sock.as_raw_fd();
    let finish = |why: &str| {
        if !why.is_empty() {
            crate::rlog!(Debug, "response to session#{fd} from the master: {why}");
        }
        let _ = shutdown(raw, Shutdown::Both);
        end_session(fd);
    };
    let Ok(resp) = head.await else {
        return finish("no response was made");
    };
    let out = match http1_bytes(resp, true).await {
        Ok(out) => out,
        Err(e) => return finish(&e),
    };
    let std = std::net::TcpStream::from(sock);
    let _ = std.set_nonblocking(true);
    let mut stream = match tokio::net::TcpStream::from_std(std) {
        Ok(s) => s,
        Err(e) => {
            crate::rlog!(Debug, "response to session#{fd} from the master: {e}");
            end_session(fd);
            return;
        }
    };
    let written = tokio::time::timeout(Duration::from_secs(5), stream.write_all(&out)).await;
    if !matches!(written, Ok(Ok(()))) {
        crate::rlog!(
            Debug,
            "response to session#{fd} from the master: not written"
        );
    }
    let _ = stream.shutdown().await;
    let _ = shutdown(stream.as_raw_fd(), Shutdown::Both);
    end_session(fd);
}

/// A whole response as HTTP/1.1 bytes, with `Connection: close` or
/// `keep-alive` (the body is collected first).
pub async fn http1_bytes(
    resp: http::Response<crate::engine::http::body::RespBody>,
    close: bool,
) -> Result<Vec<u8>, String> {
    use http_body_util::BodyExt;
    let (parts, body) = resp.into_parts();
    let body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
    let mut out = Vec::with_capacity(256 + body.len());
    let status = parts.status;
    out.extend_from_slice(
        format!(
            "HTTP/1.1 {} {}\r\n",
            status.as_u16(),
            status.canonical_reason().unwrap_or("Unknown Status")
        )
        .as_bytes(),
    );
    for (name, value) in parts.headers.iter() {
        if name == http::header::CONTENT_LENGTH
            || name == http::header::CONNECTION
            || name == http::header::TRANSFER_ENCODING
        {
            continue;
        }
        out.extend_from_slice(title_case(name.as_str()).as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(
        format!(
            "Date: {}\r\nContent-Length: {}\r\nConnection: {}\r\n\r\n",
            httpdate::fmt_http_date(std::time::SystemTime::now()),
            body.len(),
            if close { "close" } else { "keep-alive" }
        )
        .as_bytes(),
    );
    out.extend_from_slice(&body);
    Ok(out)
}

/// `content-type` -> `Content-Type`, as hyper writes names.
fn title_case(name: &str) -> String {
    let mut up = true;
    name.chars()
        .map(|c| {
            let o = if up { c.to_ascii_uppercase() } else { c };
            up = c == '-';
            o
        })
        .collect()
}

// ---- the worker side -------------------------------------------------------

thread_local! {
    /// Session id -> a duplicate of the connection's socket, in a PROCESS-mode
    /// worker: what [`release`] shuts down when the connection ends.
    /// Boxed: little static TLS room in a dlopen()ed extension.
    static MINE: Box<RefCell<HashMap<i64, OwnedFd>>> = Box::new(RefCell::new(HashMap::new()));
}

/// A PROCESS-mode worker took connection `fd` (session id) on `sock`.
pub fn adopt(fd: i64, sock: BorrowedFd<'_>) {
    if let Ok(dup) = sock.try_clone_to_owned() {
        MINE.with(|m| m.borrow_mut().insert(fd, dup));
    }
}

/// Connection `fd` is over for good: its duplicate here, its client
/// certificate, its session slot.
pub fn end_session(fd: i64) {
    release(fd);
    crate::engine::tls::forget(fd);
    crate::engine::shared::session::close(fd);
}

/// Connection `fd` ended in this worker: shut the socket down, so the
/// client sees the end although the master still holds a copy.
pub fn release(fd: i64) {
    let Some(sock) = MINE.with(|m| m.borrow_mut().remove(&fd)) else {
        return;
    };
    let _ = shutdown(sock.as_fd().as_raw_fd(), Shutdown::Both);
}

/// Connection `fd` leaves this worker without ending (handed back to the
/// master, `reactor::give_back`): drop our duplicate, no shutdown.
pub fn forget(fd: i64) {
    MINE.with(|m| m.borrow_mut().remove(&fd));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn header_names_in_title_case() {
        assert_eq!(title_case("content-type"), "Content-Type");
        assert_eq!(title_case("x-a-b"), "X-A-B");
    }

    #[test]
    fn release_ends_the_connection_although_a_copy_is_held() {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let mut client = TcpStream::connect(l.local_addr().expect("addr")).expect("connect");
        let (served, _) = l.accept().expect("accept");
        let master_copy = served.try_clone().expect("dup"); // what the master keeps
        adopt(7, served.as_fd());
        drop(served); // the worker's stream ends: the copies keep the socket open
        release(7);
        client
            .set_read_timeout(Some(Duration::from_secs(2)))
            .expect("timeout");
        let mut buf = [0u8; 8];
        assert_eq!(client.read(&mut buf).expect("read"), 0, "FIN seen");
        let _ = client.write_all(b"x");
        drop(master_copy);
    }
}
