//! A raw socket for `Coroutine\Socket`, `Coroutine\Client` and `Swoole\Client`:
//! any domain/type, non-blocking, waited on either from the event loop
//! (`io`, registered with tokio's reactor on first use) or by `poll(2)`
//! (`io_sync`, the blocking client). Each operation is a closure that makes
//! one non-blocking attempt; `WouldBlock` means "wait and try again".
//!
//! Timeouts come back as `ETIMEDOUT`, `cancel()` as `ECANCELED` and use of a
//! closed socket as `EBADF`, the errno values Swoole reports.

use std::cell::{Cell, RefCell};
use std::io;
use std::mem::MaybeUninit;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::{Buf, BytesMut};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use tokio::io::unix::AsyncFd;
use tokio::sync::Notify;

use crate::engine::net::framing::{self, Framing};
use crate::engine::tls::client::Session;

/// Which half of the socket an operation waits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Read,
    Write,
}

enum State {
    /// Not registered with a reactor yet (or never: the blocking client).
    Plain(Socket),
    Async(Rc<AsyncFd<Socket>>),
    Closed,
}

/// `setProtocol()` / the client's framing settings.
#[derive(Debug, Clone)]
pub struct Protocol2 {
    pub framing: Framing,
    pub max_len: usize,
}

impl Default for Protocol2 {
    fn default() -> Self {
        Protocol2 {
            framing: Framing::Raw,
            max_len: 2 * 1024 * 1024,
        }
    }
}

pub struct NetSocket {
    pub domain: i32,
    pub ty: i32,
    pub protocol: i32,
    fd: RawFd,
    state: RefCell<State>,
    cancel: [Notify; 2],
    cancel_flag: [Cell<bool>; 2],
    /// Bytes read ahead by `recvWithBuffer`/`recvLine`/`recvPacket`.
    buf: RefCell<BytesMut>,
    pub proto: RefCell<Protocol2>,
    /// The TLS session once `ssl_handshake` started; every read and write
    /// then goes through it (`recv_any`/`send_any`).
    tls: RefCell<Option<Box<Session>>>,
}

fn err(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

fn would_block(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::WouldBlock
}

fn ix(d: Dir) -> usize {
    match d {
        Dir::Read => 0,
        Dir::Write => 1,
    }
}

impl NetSocket {
    /// A new non-blocking, close-on-exec socket.
    pub fn new(domain: i32, ty: i32, protocol: i32) -> io::Result<Self> {
        let s = Socket::new(
            Domain::from(domain),
            Type::from(ty),
            (protocol != 0).then(|| Protocol::from(protocol)),
        )?;
        s.set_nonblocking(true)?;
        s.set_cloexec(true)?;
        Ok(Self::wrap(s, domain, ty, protocol))
    }

    fn wrap(s: Socket, domain: i32, ty: i32, protocol: i32) -> Self {
        NetSocket {
            domain,
            ty,
            protocol,
            fd: s.as_raw_fd(),
            state: RefCell::new(State::Plain(s)),
            cancel: [Notify::new(), Notify::new()],
            cancel_flag: [Cell::new(false), Cell::new(false)],
            buf: RefCell::new(BytesMut::new()),
            proto: RefCell::new(Protocol2::default()),
            tls: RefCell::new(None),
        }
    }

    /// Takes ownership of an open socket (accepted, or `Socket::import`).
    pub fn from_owned(fd: OwnedFd) -> io::Result<Self> {
        let s = Socket::from(fd);
        let int =
            |opt| -> i32 { getsockopt_int(s.as_raw_fd(), libc::SOL_SOCKET, opt).unwrap_or(0) };
        let (domain, ty, protocol) = (
            int(libc::SO_DOMAIN),
            int(libc::SO_TYPE),
            int(libc::SO_PROTOCOL),
        );
        s.set_nonblocking(true)?;
        Ok(Self::wrap(s, domain, ty, protocol))
    }

    /// Duplicates `fd` (a PHP stream's) into a socket of its own.
    pub fn import_fd(fd: RawFd) -> io::Result<Self> {
        // SAFETY: fcntl(F_DUPFD_CLOEXEC) on a caller-given descriptor;
        // a bad one fails with EBADF.
        let d = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
        if d < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `d` is a fresh descriptor we own.
        Self::from_owned(unsafe { OwnedFd::from_raw_fd(d) })
    }

    /// The descriptor number it was created with (kept after `close`).
    pub fn fd(&self) -> RawFd {
        self.fd
    }

    /// A future that writes all of `data` to this (plain, connected)
    /// socket from a loop task, through a duplicate of its descriptor (the
    /// socket's own readiness registration is left alone; the copy closes
    /// when the future ends). Errors end it silently: the peer is gone.
    /// `None` when the socket is closed or speaks TLS.
    pub fn send_all_detached(
        &self,
        data: Vec<u8>,
    ) -> Option<impl std::future::Future<Output = ()> + 'static> {
        if self.is_closed() || self.tls_on() {
            return None;
        }
        // SAFETY: fcntl(F_DUPFD_CLOEXEC) on our own open descriptor.
        let d = unsafe { libc::fcntl(self.fd, libc::F_DUPFD_CLOEXEC, 0) };
        if d < 0 {
            return None;
        }
        // SAFETY: `d` is a fresh descriptor we own.
        let owned = unsafe { OwnedFd::from_raw_fd(d) };
        Some(async move {
            // SAFETY: `owned` is our own descriptor; the registration
            // lives inside `afd`, which owns it and deregisters before it
            // closes.
            let Ok(afd) = (unsafe { tokio::io::unix::AsyncFd::register(owned) }) else {
                return;
            };
            let mut off = 0;
            while off < data.len() {
                let Ok(mut guard) = afd.writable().await else {
                    return;
                };
                let r = guard.try_io(|fd| {
                    let rest = &data[off..];
                    // SAFETY: send(2) of our own buffer on our own
                    // descriptor; MSG_NOSIGNAL: a gone peer is an error, not
                    // SIGPIPE.
                    let n = unsafe {
                        libc::send(
                            fd.as_raw_fd(),
                            rest.as_ptr().cast(),
                            rest.len(),
                            libc::MSG_NOSIGNAL,
                        )
                    };
                    if n < 0 {
                        Err(io::Error::last_os_error())
                    } else {
                        Ok(n as usize)
                    }
                });
                match r {
                    Ok(Ok(n)) if n > 0 => off += n,
                    Ok(_) => return,
                    Err(_would_block) => {}
                }
            }
        })
    }

    pub fn is_closed(&self) -> bool {
        matches!(*self.state.borrow(), State::Closed)
    }

    /// Runs `f` on the socket, `EBADF` once closed.
    pub fn with_sock<R>(&self, f: impl FnOnce(&Socket) -> io::Result<R>) -> io::Result<R> {
        match &*self.state.borrow() {
            State::Plain(s) => f(s),
            State::Async(a) => f(a.get_ref()),
            State::Closed => Err(err(libc::EBADF)),
        }
    }

    /// Closes the socket: operations in flight end with `ECANCELED` (the
    /// descriptor is released once they have).
    pub fn close(&self) -> bool {
        if let Some(t) = self.tls.borrow_mut().as_mut() {
            if !self.is_closed() {
                t.close_notify(self.fd);
            }
        }
        let old = std::mem::replace(&mut *self.state.borrow_mut(), State::Closed);
        if matches!(old, State::Closed) {
            return false;
        }
        self.cancel(Dir::Read);
        self.cancel(Dir::Write);
        drop(old);
        true
    }

    /// Ends the operation waiting on `dir` with `ECANCELED`.
    pub fn cancel(&self, dir: Dir) {
        self.cancel_flag[ix(dir)].set(true);
        self.cancel[ix(dir)].notify_waiters();
    }

    /// The socket registered with the running reactor (must be called on
    /// the runtime).
    fn registered(&self) -> io::Result<Rc<AsyncFd<Socket>>> {
        let mut st = self.state.borrow_mut();
        match std::mem::replace(&mut *st, State::Closed) {
            State::Plain(s) => {
                // SAFETY: `s` owns its descriptor, which is neither replaced
                // nor closed while the `AsyncFd` owns `s`.
                let a = Rc::new(unsafe { AsyncFd::register(s)? });
                *st = State::Async(Rc::clone(&a));
                Ok(a)
            }
            State::Async(a) => {
                *st = State::Async(Rc::clone(&a));
                Ok(a)
            }
            State::Closed => Err(err(libc::EBADF)),
        }
    }

    /// One operation from the event loop: `f` is tried, and retried each
    /// time the socket becomes ready for `dir`, until it does not return
    /// `WouldBlock`, `deadline` passes or the operation is cancelled.
    pub async fn io<R>(
        self: Rc<Self>,
        dir: Dir,
        deadline: Option<Instant>,
        mut f: impl FnMut(&Socket) -> io::Result<R>,
    ) -> io::Result<R> {
        let i = ix(dir);
        if self.cancel_flag[i].replace(false) {
            return Err(err(libc::ECANCELED));
        }
        let afd = self.registered()?;
        let notified = self.cancel[i].notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let work = async {
            loop {
                match f(afd.get_ref()) {
                    Err(e) if would_block(&e) => {}
                    r => return r,
                }
                let mut guard = match dir {
                    Dir::Read => afd.readable().await?,
                    Dir::Write => afd.writable().await?,
                };
                match guard.try_io(|a| f(a.get_ref())) {
                    Ok(r) => return r,
                    Err(_) => continue,
                }
            }
        };
        let timed = async {
            match deadline {
                Some(d) => tokio::time::timeout_at(d.into(), work)
                    .await
                    .unwrap_or_else(|_| Err(err(libc::ETIMEDOUT))),
                None => work.await,
            }
        };
        let r = tokio::select! {
            r = timed => r,
            _ = notified => Err(err(libc::ECANCELED)),
        };
        self.cancel_flag[i].set(false);
        if self.is_closed() && r.is_err() {
            return Err(err(libc::ECANCELED));
        }
        r
    }

    /// The same as `io`, blocking the thread in `poll(2)`.
    pub fn io_sync<R>(
        &self,
        dir: Dir,
        deadline: Option<Instant>,
        mut f: impl FnMut(&Socket) -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            match self.with_sock(&mut f) {
                Err(e) if would_block(&e) => {}
                r => return r,
            }
            let ms = match deadline {
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(err(libc::ETIMEDOUT));
                    }
                    left.as_millis().clamp(1, i32::MAX as u128) as i32
                }
                None => -1,
            };
            let mut p = libc::pollfd {
                fd: self.fd,
                events: match dir {
                    Dir::Read => libc::POLLIN,
                    Dir::Write => libc::POLLOUT,
                },
                revents: 0,
            };
            // SAFETY: one valid pollfd for the duration of the call.
            let n = unsafe { libc::poll(&mut p, 1, ms) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            } else if n == 0 {
                return Err(err(libc::ETIMEDOUT));
            }
        }
    }

    /// Starts a connect; `Ok(true)` when it completed at once, `Ok(false)`
    /// when it is in progress (then wait with `connect_done`).
    pub fn connect_start(&self, addr: &SockAddr) -> io::Result<bool> {
        match self.with_sock(|s| s.connect(addr)) {
            Ok(()) => Ok(true),
            Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) || would_block(&e) => Ok(false),
            Err(e) => Err(e),
        }
    }

    pub async fn connect(
        self: Rc<Self>,
        addr: SockAddr,
        deadline: Option<Instant>,
    ) -> io::Result<()> {
        if self.connect_start(&addr)? {
            return Ok(());
        }
        self.io(Dir::Write, deadline, connect_done).await
    }

    pub fn connect_sync(&self, addr: &SockAddr, deadline: Option<Instant>) -> io::Result<()> {
        if self.connect_start(addr)? {
            return Ok(());
        }
        self.io_sync(Dir::Write, deadline, connect_done)
    }

    /// Takes up to `len` bytes out of the read-ahead buffer.
    pub fn take_buffered(&self, len: usize) -> Option<Vec<u8>> {
        let mut b = self.buf.borrow_mut();
        if b.is_empty() {
            return None;
        }
        let n = len.min(b.len());
        Some(b.split_to(n).to_vec())
    }

    pub fn buffered(&self) -> usize {
        self.buf.borrow().len()
    }

    /// Appends read-ahead bytes.
    /// A copy of up to `len` read-ahead bytes, left in the buffer.
    pub fn peek_buffered(&self, len: usize) -> Option<Vec<u8>> {
        let b = self.buf.borrow();
        (!b.is_empty()).then(|| b[..len.min(b.len())].to_vec())
    }

    pub fn push_buffered(&self, data: &[u8]) {
        self.buf.borrow_mut().extend_from_slice(data);
    }

    /// `recvLine`: a line (with its `\n` or `\r`) or `len` bytes out of the
    /// buffer, if it holds one.
    pub fn take_line(&self, len: usize) -> Option<Vec<u8>> {
        let mut b = self.buf.borrow_mut();
        let lim = len.min(b.len());
        // Swoole's recv_line ends a line at '\n' or at '\r'.
        if let Some(p) = b[..lim].iter().position(|c| *c == b'\n' || *c == b'\r') {
            return Some(b.split_to(p + 1).to_vec());
        }
        (b.len() >= len && len > 0).then(|| b.split_to(len).to_vec())
    }

    /// `recvPacket`: the next complete frame of the protocol, if buffered.
    pub fn take_packet(&self) -> Result<Option<Vec<u8>>, framing::FrameError> {
        let proto = self.proto.borrow().clone();
        if matches!(proto.framing, Framing::Raw) {
            let mut b = self.buf.borrow_mut();
            return Ok((!b.is_empty()).then(|| b.split().to_vec()));
        }
        let mut b = self.buf.borrow_mut();
        let mut out = Vec::with_capacity(1);
        // One frame at a time: the rest stays buffered.
        let mut copy = b.clone();
        // Bytes after the first frame may not be a valid frame yet (or be
        // the start of a large one): only the first frame's outcome counts.
        // A packet ends at the first EOF (Swoole's recv_packet), with or
        // without `open_eof_split`.
        let f = match proto.framing {
            Framing::Eof { eof, .. } => Framing::Eof { eof, split: true },
            f => f,
        };
        let r = framing::take_frames(&f, &mut copy, proto.max_len, &mut out);
        let Some(first) = out.into_iter().next() else {
            r?;
            return Ok(None);
        };
        b.advance(first.len());
        Ok(Some(first.to_vec()))
    }

    /// Drops the read-ahead buffer.
    pub fn clear_buffer(&self) {
        self.buf.borrow_mut().clear();
    }
}

/// Completes a non-blocking connect (`WouldBlock` while in progress).
pub fn connect_done(s: &Socket) -> io::Result<()> {
    if let Some(e) = s.take_error()? {
        return Err(e);
    }
    match s.peer_addr() {
        Ok(_) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::ENOTCONN) => Err(io::ErrorKind::WouldBlock.into()),
        Err(e) => Err(e),
    }
}

fn uninit(v: &mut Vec<u8>) -> &mut [MaybeUninit<u8>] {
    let cap = v.capacity();
    // SAFETY: the spare capacity is `cap - len` bytes owned by `v`, viewed
    // as uninitialised; only written by the kernel, then `set_len`.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), cap) }
}

/// One `recv` of up to `len` bytes (`flags`: `MSG_PEEK`, ...); an empty
/// vector is the peer's end of stream.
pub fn recv_op(s: &Socket, len: usize, flags: i32) -> io::Result<Vec<u8>> {
    let mut v = Vec::with_capacity(len.max(1));
    let n = s.recv_with_flags(&mut uninit(&mut v)[..len], flags)?;
    // SAFETY: the kernel wrote `n` bytes.
    unsafe { v.set_len(n) };
    Ok(v)
}

/// `recvfrom`: a datagram and its sender.
pub fn recv_from_op(s: &Socket, len: usize) -> io::Result<(Vec<u8>, SockAddr)> {
    let mut v = Vec::with_capacity(len.max(1));
    let (n, from) = s.recv_from(&mut uninit(&mut v)[..len])?;
    // SAFETY: the kernel wrote `n` bytes.
    unsafe { v.set_len(n) };
    Ok((v, from))
}

/// One `send` (never `SIGPIPE`).
pub fn send_op(s: &Socket, data: &[u8]) -> io::Result<usize> {
    s.send_with_flags(data, libc::MSG_NOSIGNAL)
}

/// Reads ahead into `sock`'s buffer: one recv of up to `len` bytes;
/// `Ok(0)` at end of stream.
pub fn fill_op(sock: &NetSocket, s: &Socket, len: usize) -> io::Result<usize> {
    let v = sock.recv_any(s, len, 0)?;
    sock.push_buffered(&v);
    Ok(v.len())
}

/// `sendfile(2)` of `len` bytes of `file` from `*off`, one attempt.
pub fn sendfile_op(s: &Socket, file: RawFd, off: &mut i64, len: usize) -> io::Result<usize> {
    let mut o: libc::off_t = *off;
    // SAFETY: both descriptors are open; `o` is a valid out-pointer.
    let n = unsafe { libc::sendfile(s.as_raw_fd(), file, &mut o, len) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    *off = o;
    Ok(n as usize)
}

pub fn getsockopt_int(fd: RawFd, level: i32, name: i32) -> io::Result<i32> {
    let mut v: libc::c_int = 0;
    let mut l = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `v`/`l` are valid out-pointers of the right size.
    let r = unsafe { libc::getsockopt(fd, level, name, (&raw mut v).cast(), &mut l) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(v)
}

pub fn setsockopt_int(fd: RawFd, level: i32, name: i32, v: i32) -> io::Result<()> {
    setsockopt_raw(fd, level, name, &v.to_ne_bytes())
}

pub fn setsockopt_raw(fd: RawFd, level: i32, name: i32, v: &[u8]) -> io::Result<()> {
    // SAFETY: `v` is a valid buffer of `v.len()` bytes.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            v.as_ptr().cast(),
            v.len() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Reads a socket option as raw bytes (up to `cap`).
pub fn getsockopt_raw(fd: RawFd, level: i32, name: i32, cap: usize) -> io::Result<Vec<u8>> {
    let mut v = vec![0u8; cap];
    let mut l = cap as libc::socklen_t;
    // SAFETY: `v` has `l` writable bytes.
    let r = unsafe { libc::getsockopt(fd, level, name, v.as_mut_ptr().cast(), &mut l) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    v.truncate(l as usize);
    Ok(v)
}

/// The address for `host`/`port` in `domain`, when `host` needs no lookup
/// (an IP literal, or a path for `AF_UNIX`); `None` for a host name.
pub fn literal_addr(domain: i32, host: &str, port: u16) -> Option<io::Result<SockAddr>> {
    match domain {
        libc::AF_UNIX => Some(SockAddr::unix(host)),
        libc::AF_INET6 => {
            let h = host.trim_start_matches('[').trim_end_matches(']');
            let ip: Ipv6Addr = h.parse().ok()?;
            Some(Ok(SockAddr::from(SocketAddr::new(IpAddr::V6(ip), port))))
        }
        _ => {
            let ip: Ipv4Addr = host.parse().ok()?;
            Some(Ok(SockAddr::from(SocketAddr::new(IpAddr::V4(ip), port))))
        }
    }
}

/// `getaddrinfo` for `host` in `family` (`AF_INET`/`AF_INET6`, 0 for
/// both), blocking: call it on a blocking thread.
pub fn lookup(host: &str, family: i32) -> io::Result<Vec<IpAddr>> {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    let mut out: Vec<IpAddr> = Vec::new();
    for a in (h, 0u16).to_socket_addrs()? {
        let ip = a.ip();
        let ok = match family {
            libc::AF_INET => ip.is_ipv4(),
            libc::AF_INET6 => ip.is_ipv6(),
            _ => true,
        };
        if ok && !out.contains(&ip) {
            out.push(ip);
        }
    }
    Ok(out)
}

/// `lookup` on tokio's blocking pool, so the loop keeps running.
pub async fn lookup_async(
    host: String,
    family: i32,
    timeout: Option<Duration>,
) -> io::Result<Vec<IpAddr>> {
    let job = tokio::task::spawn_blocking(move || lookup(&host, family));
    let r = match timeout {
        Some(t) => match tokio::time::timeout(t, job).await {
            Ok(r) => r,
            Err(_) => return Err(err(libc::ETIMEDOUT)),
        },
        None => job.await,
    };
    r.map_err(|_| err(libc::EIO))?
}

/// An address as Swoole shows it: `(host, port)`; a Unix socket's path as
/// host and port 0.
pub fn addr_parts(a: &SockAddr) -> (String, u16) {
    if let Some(s) = a.as_socket() {
        return (s.ip().to_string(), s.port());
    }
    if let Some(p) = a.as_pathname() {
        return (p.to_string_lossy().into_owned(), 0);
    }
    if let Some(n) = a.as_abstract_namespace() {
        return (String::from_utf8_lossy(n).into_owned(), 0);
    }
    (String::new(), 0)
}

// ------------------------------------------------------------------ TLS

impl NetSocket {
    /// Puts a new client session on the socket (before `handshake_op`).
    pub fn start_tls(&self, s: Session) {
        *self.tls.borrow_mut() = Some(Box::new(s));
    }

    pub fn tls_on(&self) -> bool {
        self.tls.borrow().is_some()
    }

    /// True once the handshake finished.
    pub fn tls_ready(&self) -> bool {
        self.tls
            .borrow()
            .as_ref()
            .is_some_and(|t| !t.is_handshaking())
    }

    pub fn tls_peer_pem(&self) -> Option<String> {
        self.tls.borrow().as_ref().and_then(|t| t.peer_cert_pem())
    }

    pub fn tls_peer_certs(&self) -> Vec<Vec<u8>> {
        self.tls
            .borrow()
            .as_ref()
            .map(|t| t.peer_certs_der())
            .unwrap_or_default()
    }

    /// Plaintext waiting inside the TLS session (a poll on the fd would not
    /// see it).
    pub fn tls_pending(&self) -> bool {
        self.tls
            .borrow_mut()
            .as_mut()
            .is_some_and(|t| t.readable_now())
    }

    /// One attempt at the TLS handshake (wait for `Dir::Read` on `WouldBlock`).
    pub fn handshake_op(&self, s: &Socket) -> io::Result<()> {
        match self.tls.borrow_mut().as_mut() {
            Some(t) => t.handshake_step(s.as_raw_fd()),
            None => Err(err(libc::EINVAL)),
        }
    }

    /// `recv_op` through TLS when it is on; a TLS peek keeps the bytes in
    /// the read-ahead buffer.
    pub fn recv_any(&self, s: &Socket, len: usize, flags: i32) -> io::Result<Vec<u8>> {
        let mut tls = self.tls.borrow_mut();
        let Some(t) = tls.as_mut() else {
            return recv_op(s, len, flags);
        };
        let v = t.recv_step(s.as_raw_fd(), len)?;
        if flags & libc::MSG_PEEK != 0 && !v.is_empty() {
            self.push_buffered(&v);
        }
        Ok(v)
    }

    /// `send_op` through TLS when it is on (the records of one call are all
    /// written before it returns; `WouldBlock` in between).
    pub fn send_any(&self, s: &Socket, data: &[u8]) -> io::Result<usize> {
        match self.tls.borrow_mut().as_mut() {
            Some(t) => t.send_step(s.as_raw_fd(), data),
            None => send_op(s, data),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt() -> (tokio::runtime::Runtime, tokio::task::LocalSet) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        (rt, tokio::task::LocalSet::new())
    }

    fn listener() -> (Rc<NetSocket>, SockAddr) {
        let l = NetSocket::new(libc::AF_INET, libc::SOCK_STREAM, 0).expect("socket");
        let a = literal_addr(libc::AF_INET, "127.0.0.1", 0)
            .expect("literal")
            .expect("addr");
        l.with_sock(|s| s.bind(&a)).expect("bind");
        l.with_sock(|s| s.listen(16)).expect("listen");
        let bound = l.with_sock(|s| s.local_addr()).expect("local");
        (Rc::new(l), bound)
    }

    #[test]
    fn tcp_echo_and_framing() {
        let (rt, local) = rt();
        local.block_on(&rt, async {
            let (l, addr) = listener();
            let server = tokio::task::spawn_local(async move {
                let (c, _) = Rc::clone(&l)
                    .io(Dir::Read, None, |s| s.accept())
                    .await
                    .expect("accept");
                let c = Rc::new(NetSocket::from_owned(c.into()).expect("wrap"));
                let d = Rc::clone(&c)
                    .io(Dir::Read, None, |s| recv_op(s, 100, 0))
                    .await
                    .expect("recv");
                Rc::clone(&c)
                    .io(Dir::Write, None, move |s| send_op(s, &d))
                    .await
                    .expect("send");
            });
            let c = Rc::new(NetSocket::new(libc::AF_INET, libc::SOCK_STREAM, 0).expect("s"));
            Rc::clone(&c).connect(addr, None).await.expect("connect");
            let mut frame = 5u32.to_be_bytes().to_vec();
            frame.extend_from_slice(b"helloXX");
            frame.extend_from_slice(&[0xff; 8]);
            Rc::clone(&c)
                .io(Dir::Write, None, move |s| send_op(s, &frame))
                .await
                .expect("send");
            *c.proto.borrow_mut() = Protocol2 {
                framing: Framing::Length {
                    kind: framing::LengthType::U32Be,
                    length_offset: 0,
                    body_offset: 4,
                },
                max_len: 1024,
            };
            loop {
                if let Some(p) = c.take_packet().expect("frame") {
                    assert_eq!(&p[4..], b"hello");
                    break;
                }
                let c2 = Rc::clone(&c);
                let n = Rc::clone(&c)
                    .io(Dir::Read, None, move |s| fill_op(&c2, s, 65536))
                    .await
                    .expect("fill");
                assert!(n > 0);
            }
            assert_eq!(&c.take_buffered(2).unwrap_or_default(), b"XX");
            server.await.expect("server");
        });
    }

    #[test]
    fn timeout_and_cancel() {
        let (rt, local) = rt();
        local.block_on(&rt, async {
            let (_l, addr) = listener();
            let c = Rc::new(NetSocket::new(libc::AF_INET, libc::SOCK_STREAM, 0).expect("s"));
            Rc::clone(&c).connect(addr, None).await.expect("connect");
            let t0 = Instant::now();
            let e = Rc::clone(&c)
                .io(
                    Dir::Read,
                    Some(Instant::now() + Duration::from_millis(50)),
                    |s| recv_op(s, 10, 0),
                )
                .await
                .expect_err("timeout");
            assert_eq!(e.raw_os_error(), Some(libc::ETIMEDOUT));
            assert!(t0.elapsed() >= Duration::from_millis(45));
            let c2 = Rc::clone(&c);
            let reader = tokio::task::spawn_local(async move {
                c2.io(Dir::Read, None, |s| recv_op(s, 10, 0)).await
            });
            tokio::task::yield_now().await;
            c.cancel(Dir::Read);
            let e = reader.await.expect("join").expect_err("cancel");
            assert_eq!(e.raw_os_error(), Some(libc::ECANCELED));
        });
    }

    #[test]
    fn sync_connect_refused_and_udp() {
        let c = NetSocket::new(libc::AF_INET, libc::SOCK_STREAM, 0).expect("s");
        // A port nothing listens on: bind one, then close it.
        let (l, addr) = listener();
        l.close();
        let e = c
            .connect_sync(&addr, Some(Instant::now() + Duration::from_secs(2)))
            .expect_err("refused");
        assert_eq!(e.raw_os_error(), Some(libc::ECONNREFUSED));
        let a = NetSocket::new(libc::AF_INET, libc::SOCK_DGRAM, 0).expect("udp");
        let any = literal_addr(libc::AF_INET, "127.0.0.1", 0)
            .expect("l")
            .expect("a");
        a.with_sock(|s| s.bind(&any)).expect("bind");
        let at = a.with_sock(|s| s.local_addr()).expect("addr");
        let b = NetSocket::new(libc::AF_INET, libc::SOCK_DGRAM, 0).expect("udp");
        b.io_sync(Dir::Write, None, |s| s.send_to(b"ping", &at))
            .expect("sendto");
        let (d, from) = a
            .io_sync(
                Dir::Read,
                Some(Instant::now() + Duration::from_secs(2)),
                |s| recv_from_op(s, 100),
            )
            .expect("recvfrom");
        assert_eq!(d, b"ping");
        assert_eq!(addr_parts(&from).0, "127.0.0.1");
        assert_eq!(c.take_line(10), None);
        c.push_buffered(b"ab\ncd");
        assert_eq!(c.take_line(10).as_deref(), Some(&b"ab\n"[..]));
        assert_eq!(c.take_line(2).as_deref(), Some(&b"cd"[..]));
    }
}

/// Multicast membership requests (RFC 3678's protocol-independent
/// `MCAST_*` options), as ext-sockets and Swoole's `Coroutine\Socket::setOption()` make them.
pub mod mcast {
    use std::io;
    use std::net::{IpAddr, Ipv4Addr, SocketAddr};
    use std::os::fd::RawFd;

    use socket2::SockAddr;

    use super::setsockopt_raw;

    pub const JOIN_GROUP: i32 = 42;
    pub const BLOCK_SOURCE: i32 = 43;
    pub const UNBLOCK_SOURCE: i32 = 44;
    pub const LEAVE_GROUP: i32 = 45;
    pub const JOIN_SOURCE_GROUP: i32 = 46;
    pub const LEAVE_SOURCE_GROUP: i32 = 47;

    /// True for the six `MCAST_*` options.
    pub fn is_mcast(name: i32) -> bool {
        (JOIN_GROUP..=LEAVE_SOURCE_GROUP).contains(&name)
    }

    /// True for the options that also take a `source`.
    pub fn needs_source(name: i32) -> bool {
        matches!(
            name,
            BLOCK_SOURCE | UNBLOCK_SOURCE | JOIN_SOURCE_GROUP | LEAVE_SOURCE_GROUP
        )
    }

    fn storage(a: &SockAddr) -> libc::sockaddr_storage {
        // SAFETY: an all-zero sockaddr_storage is valid.
        let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        let len = (a.len() as usize).min(std::mem::size_of::<libc::sockaddr_storage>());
        // SAFETY: `a` holds `a.len()` bytes of address; at most
        // sizeof(sockaddr_storage) are copied into `ss`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                a.as_ptr().cast::<u8>(),
                std::ptr::addr_of_mut!(ss).cast::<u8>(),
                len,
            );
        }
        ss
    }

    fn bytes_of<T>(v: &T) -> &[u8] {
        // SAFETY: `v` is a plain C struct; its bytes are read for the
        // length of the struct.
        unsafe {
            std::slice::from_raw_parts(std::ptr::from_ref(v).cast::<u8>(), std::mem::size_of::<T>())
        }
    }

    /// `setsockopt(level, name, group_req / group_source_req)`.
    pub fn request(
        fd: RawFd,
        level: i32,
        name: i32,
        group: IpAddr,
        source: Option<IpAddr>,
        ifindex: u32,
    ) -> io::Result<()> {
        let g = SockAddr::from(SocketAddr::new(group, 0));
        match source {
            None => {
                let req = libc::group_req {
                    gr_interface: ifindex,
                    gr_group: storage(&g),
                };
                setsockopt_raw(fd, level, name, bytes_of(&req))
            }
            Some(src) => {
                let s = SockAddr::from(SocketAddr::new(src, 0));
                let req = libc::group_source_req {
                    gsr_interface: ifindex,
                    gsr_group: storage(&g),
                    gsr_source: storage(&s),
                };
                setsockopt_raw(fd, level, name, bytes_of(&req))
            }
        }
    }

    /// The IPv4 address of interface `index` (0: `INADDR_ANY`).
    pub fn if_index_to_addr4(index: u32) -> Option<Ipv4Addr> {
        if index == 0 {
            return Some(Ipv4Addr::UNSPECIFIED);
        }
        let name = nix::net::if_::if_indextoname(index).ok()?;
        let name = name.to_string_lossy().into_owned();
        let addrs = nix::ifaddrs::getifaddrs().ok()?;
        for a in addrs {
            if a.interface_name != name {
                continue;
            }
            if let Some(sin) = a.address.as_ref().and_then(|s| s.as_sockaddr_in()) {
                return Some(sin.ip());
            }
        }
        None
    }

    /// The index of the interface holding IPv4 address `addr` (`INADDR_ANY`: 0).
    pub fn addr4_to_if_index(addr: Ipv4Addr) -> Option<u32> {
        if addr.is_unspecified() {
            return Some(0);
        }
        let addrs = nix::ifaddrs::getifaddrs().ok()?;
        for a in addrs {
            if a.address
                .as_ref()
                .and_then(|s| s.as_sockaddr_in())
                .map(|s| s.ip())
                == Some(addr)
            {
                return nix::net::if_::if_nametoindex(a.interface_name.as_str()).ok();
            }
        }
        None
    }

    /// `setsockopt(IPPROTO_IPV6, IPV6_PKTINFO, in6_pktinfo)`.
    pub fn set_pktinfo(fd: RawFd, addr: std::net::Ipv6Addr, ifindex: u32) -> io::Result<()> {
        let info = libc::in6_pktinfo {
            ipi6_addr: libc::in6_addr {
                s6_addr: addr.octets(),
            },
            ipi6_ifindex: ifindex,
        };
        setsockopt_raw(fd, libc::IPPROTO_IPV6, libc::IPV6_PKTINFO, bytes_of(&info))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn loopback_index_and_address() {
            assert_eq!(if_index_to_addr4(0), Some(Ipv4Addr::UNSPECIFIED));
            assert_eq!(addr4_to_if_index(Ipv4Addr::UNSPECIFIED), Some(0));
            let lo = nix::net::if_::if_nametoindex("lo").unwrap_or(1);
            assert_eq!(if_index_to_addr4(lo), Some(Ipv4Addr::LOCALHOST));
            assert_eq!(addr4_to_if_index(Ipv4Addr::LOCALHOST), Some(lo));
        }

        #[test]
        fn join_and_leave_on_loopback() -> io::Result<()> {
            let s = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::DGRAM, None)?;
            use std::os::fd::AsRawFd;
            let lo = nix::net::if_::if_nametoindex("lo").unwrap_or(1);
            let g: IpAddr = "224.0.0.77"
                .parse()
                .map_err(|_| io::ErrorKind::InvalidInput)?;
            request(s.as_raw_fd(), libc::IPPROTO_IP, JOIN_GROUP, g, None, lo)?;
            request(s.as_raw_fd(), libc::IPPROTO_IP, LEAVE_GROUP, g, None, lo)?;
            // Leaving twice: the kernel says the group is not joined.
            assert!(request(s.as_raw_fd(), libc::IPPROTO_IP, LEAVE_GROUP, g, None, lo).is_err());
            Ok(())
        }
    }
}
