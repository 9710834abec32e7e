//! The protocol side of `Swoole\Coroutine\Http\Client`: connect with a
//! timeout, HTTP/1.1 requests and responses (Content-Length, chunked and
//! close-delimited bodies, gzip/deflate, keep-alive), Set-Cookie parsing,
//! and the WebSocket client (handshake, masked frames, fragments joined,
//! ping answered, close echoed).
//!
//! Plain async Rust over tokio's `TcpStream` (a `UnixStream` for a
//! `unix:/path` host), or a rustls stream over TCP for
//! `$ssl` (`connect_tls`, configured by `tls_client`), no PHP. A connection is split
//! into a [`Reader`] (owned by whichever operation reads, so a read that
//! times out keeps its buffered bytes) and a [`Writer`] shared by pushes and
//! by the reader's automatic pong. The PHP layer moves a `Reader` into a
//! loop task and gets it back with the result.

use std::cell::Cell;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes, BytesMut};
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpSocket, TcpStream};
use tokio_rustls::client::TlsStream;

use crate::engine::tls::client::{self as tls_client, TlsOptions};

use crate::engine::ws;
use crate::engine::ws::deflate as ws_deflate;

/// Largest response head accepted.
const MAX_HEAD: usize = 64 * 1024;
/// Largest WebSocket message accepted (Swoole's default `package_max_length`).
pub const WS_MAX_MESSAGE: usize = 2 * 1024 * 1024;

/// Why an operation failed, as `statusCode` tells it in PHP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailKind {
    /// Could not connect (`SWOOLE_HTTP_CLIENT_ESTATUS_CONNECT_FAILED`, -1).
    Connect,
    /// The response did not arrive in time (`..._REQUEST_TIMEOUT`, -2).
    Timeout,
    /// The peer closed or broke the protocol (`..._SERVER_RESET`, -3).
    Reset,
    /// Writing the request failed (`..._SEND_FAILED`, -4).
    Send,
}

/// A failed operation: its kind, an errno-like code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    pub kind: FailKind,
    pub code: i32,
    pub msg: String,
}

/// `Http invalid protocol` (Swoole's `SW_ERROR_HTTP_INVALID_PROTOCOL`).
pub const ERR_HTTP_INVALID_PROTOCOL: i32 = 7102;
/// `SW_ERROR_WEBSOCKET_HANDSHAKE_FAILED`.
pub const ERR_WS_HANDSHAKE_FAILED: i32 = 8504;

/// The text of an OS error number, without Rust's " (os error N)".
pub fn strerror(code: i32) -> String {
    let t = io::Error::from_raw_os_error(code).to_string();
    match t.find(" (os error") {
        Some(i) => t[..i].to_string(),
        None => t,
    }
}

impl Fail {
    fn os(kind: FailKind, code: i32) -> Self {
        Fail {
            kind,
            code,
            msg: strerror(code),
        }
    }

    fn io(kind: FailKind, e: &io::Error) -> Self {
        match e.raw_os_error() {
            Some(code) => Fail::os(kind, code),
            None if e.kind() == io::ErrorKind::UnexpectedEof => Fail::os(kind, libc::ECONNRESET),
            None => Fail {
                kind,
                code: libc::EIO,
                msg: e.to_string(),
            },
        }
    }

    fn timeout(kind: FailKind) -> Self {
        Fail::os(kind, libc::ETIMEDOUT)
    }

    fn reset() -> Self {
        Fail::os(FailKind::Reset, libc::ECONNRESET)
    }

    fn protocol(msg: &str) -> Self {
        Fail {
            kind: FailKind::Reset,
            code: ERR_HTTP_INVALID_PROTOCOL,
            msg: msg.to_string(),
        }
    }
}

/// The read half of a plain or TLS connection.
pub enum ReadHalf {
    Plain(OwnedReadHalf),
    Tls(tokio::io::ReadHalf<TlsStream<TcpStream>>),
    Unix(tokio::net::unix::OwnedReadHalf),
}

/// The write half of a plain or TLS connection.
pub enum WriteHalf {
    Plain(OwnedWriteHalf),
    Tls(tokio::io::WriteHalf<TlsStream<TcpStream>>),
    Unix(tokio::net::unix::OwnedWriteHalf),
}

impl AsyncRead for ReadHalf {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            ReadHalf::Plain(h) => Pin::new(h).poll_read(cx, buf),
            ReadHalf::Tls(h) => Pin::new(h).poll_read(cx, buf),
            ReadHalf::Unix(h) => Pin::new(h).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for WriteHalf {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            WriteHalf::Plain(h) => Pin::new(h).poll_write(cx, buf),
            WriteHalf::Tls(h) => Pin::new(h).poll_write(cx, buf),
            WriteHalf::Unix(h) => Pin::new(h).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            WriteHalf::Plain(h) => Pin::new(h).poll_flush(cx),
            WriteHalf::Tls(h) => Pin::new(h).poll_flush(cx),
            WriteHalf::Unix(h) => Pin::new(h).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            WriteHalf::Plain(h) => Pin::new(h).poll_shutdown(cx),
            WriteHalf::Tls(h) => Pin::new(h).poll_shutdown(cx),
            WriteHalf::Unix(h) => Pin::new(h).poll_shutdown(cx),
        }
    }
}

/// The read side of a connection with its buffer (bytes past the last
/// response or frame stay here for the next read).
pub struct Reader {
    half: ReadHalf,
    local: Option<SocketAddr>,
    peer: Option<SocketAddr>,
    /// The server's certificate (PEM) on a TLS connection.
    peer_cert: Option<String>,
    buf: BytesMut,
    /// A fragmented WebSocket message being joined: (opcode, rsv, data).
    partial: Option<(u8, u8, BytesMut)>,
}

/// The write side, shared by pushes and the reader's automatic replies.
/// An `Arc` (the process is single-threaded) for `try_lock_owned`: a push
/// the socket only partly took keeps the lock until its task writes the
/// rest, so no pong lands inside the frame.
pub type Writer = Arc<tokio::sync::Mutex<WriteHalf>>;

/// What [`try_write`] managed.
pub enum TryWrite {
    /// Everything went out.
    Done,
    /// The socket is full after this many bytes; the lock is still held,
    /// give it to [`write_rest`].
    Rest(tokio::sync::OwnedMutexGuard<WriteHalf>, usize),
    /// Someone else is writing: use [`write_all`].
    Busy,
}

/// A new TCP socket for `addr`; its fd exists before it connects.
pub fn new_socket(addr: &SocketAddr) -> io::Result<TcpSocket> {
    if addr.is_ipv4() {
        TcpSocket::new_v4()
    } else {
        TcpSocket::new_v6()
    }
}

/// A new Unix stream socket; its fd exists before it connects.
pub fn new_unix_socket() -> io::Result<tokio::net::UnixSocket> {
    tokio::net::UnixSocket::new_stream()
}

/// The socket path of a `unix:/path` host (`unix:` then one or more
/// slashes, kept as one), or None for a network host.
pub fn unix_path(host: &str) -> Option<String> {
    let rest = host.strip_prefix("unix:")?;
    if !rest.starts_with('/') {
        return None;
    }
    Some(format!("/{}", rest.trim_start_matches('/')))
}

/// Connects the Unix socket `sock` to `path` within `timeout`.
pub async fn connect_unix(
    sock: tokio::net::UnixSocket,
    path: String,
    timeout: Option<Duration>,
) -> Result<(Reader, Writer), Fail> {
    let stream = connect_within(sock.connect(path), timeout).await?;
    let (rd, wr) = stream.into_split();
    Ok((
        new_reader(ReadHalf::Unix(rd), None, None),
        Arc::new(tokio::sync::Mutex::new(WriteHalf::Unix(wr))),
    ))
}

/// Connects `sock` to `addr` within `timeout` and splits the stream.
pub async fn connect(
    sock: TcpSocket,
    addr: SocketAddr,
    timeout: Option<Duration>,
) -> Result<(Reader, Writer), Fail> {
    let stream = connect_within(sock.connect(addr), timeout).await?;
    Ok(split(stream))
}

/// A connect future bounded by `timeout`, its failure as the client
/// reports it.
async fn connect_within<S>(
    fut: impl std::future::Future<Output = std::io::Result<S>>,
    timeout: Option<Duration>,
) -> Result<S, Fail> {
    match timeout {
        Some(t) => match tokio::time::timeout(t, fut).await {
            Ok(r) => r,
            Err(_) => return Err(Fail::timeout(FailKind::Connect)),
        },
        None => fut.await,
    }
    .map_err(|e| Fail::io(FailKind::Connect, &e))
}

/// The TLS failure as the client reports it (`statusCode` -1, errCode
/// `SWOOLE_ERROR_SSL_*`).
fn tls_fail(e: &io::Error) -> Fail {
    match tls_client::io_error_code(e) {
        Some(code) => Fail {
            kind: FailKind::Connect,
            code,
            msg: match code {
                tls_client::ERR_VERIFY_FAILED => "SSL verify failed".into(),
                _ => "SSL handshake failed".into(),
            },
        },
        None => match e.raw_os_error() {
            Some(c) => Fail::os(FailKind::Connect, c),
            None => Fail {
                kind: FailKind::Connect,
                code: tls_client::ERR_HANDSHAKE_FAILED,
                msg: "SSL handshake failed".into(),
            },
        },
    }
}

/// Connects `sock` to `addr` and, with `tls`, runs the TLS handshake for
/// `host`, all within `timeout`.
pub async fn connect_tls(
    sock: TcpSocket,
    addr: SocketAddr,
    timeout: Option<Duration>,
    tls: Option<(TlsOptions, String)>,
) -> Result<(Reader, Writer), Fail> {
    let Some((opts, host)) = tls else {
        return connect(sock, addr, timeout).await;
    };
    let cfg = tls_client::client_config(&opts).map_err(|msg| Fail {
        kind: FailKind::Connect,
        code: tls_client::ERR_CREATE_CONTEXT_FAILED,
        msg,
    })?;
    let name = tls_client::server_name(&opts, &host);
    let fut = async {
        let stream = sock
            .connect(addr)
            .await
            .map_err(|e| Fail::io(FailKind::Connect, &e))?;
        let _ = stream.set_nodelay(true);
        let connector = tokio_rustls::TlsConnector::from(cfg);
        let tls = connector
            .connect(name, stream)
            .await
            .map_err(|e| tls_fail(&e))?;
        Ok(split_tls(tls))
    };
    match timeout {
        Some(t) => match tokio::time::timeout(t, fut).await {
            Ok(r) => r,
            Err(_) => Err(Fail::timeout(FailKind::Connect)),
        },
        None => fut.await,
    }
}

fn new_reader(half: ReadHalf, local: Option<SocketAddr>, peer: Option<SocketAddr>) -> Reader {
    Reader {
        half,
        local,
        peer,
        peer_cert: None,
        buf: BytesMut::with_capacity(16 * 1024),
        partial: None,
    }
}

/// Splits a connected stream into the client's two halves.
pub fn split(stream: TcpStream) -> (Reader, Writer) {
    let _ = stream.set_nodelay(true);
    let (local, peer) = (stream.local_addr().ok(), stream.peer_addr().ok());
    let (rd, wr) = stream.into_split();
    (
        new_reader(ReadHalf::Plain(rd), local, peer),
        Arc::new(tokio::sync::Mutex::new(WriteHalf::Plain(wr))),
    )
}

/// Splits a TLS stream into the client's two halves.
pub fn split_tls(stream: TlsStream<TcpStream>) -> (Reader, Writer) {
    let (tcp, conn) = stream.get_ref();
    let (local, peer) = (tcp.local_addr().ok(), tcp.peer_addr().ok());
    let cert = tls_client::peer_pem(conn);
    let (rd, wr) = tokio::io::split(stream);
    let mut r = new_reader(ReadHalf::Tls(rd), local, peer);
    r.peer_cert = cert;
    (r, Arc::new(tokio::sync::Mutex::new(WriteHalf::Tls(wr))))
}

/// Runs `fut` with an optional deadline; `None` = no limit.
fn within<T, F: std::future::Future<Output = Result<T, Fail>>>(
    deadline: Option<Instant>,
    kind: FailKind,
    fut: F,
) -> Within<F> {
    Within {
        fut,
        sleep: deadline.map(|d| tokio::time::sleep_until(tokio::time::Instant::from_std(d))),
        kind,
    }
}

/// [`within`]'s future: `fut` and its deadline in one value. An `async fn`
/// that matched on the deadline (`timeout(fut)` or `fut`) held two copies of
/// `fut`'s state, and a WebSocket `recv()` future was 1.5 KB, copied a few
/// times per message.
struct Within<F> {
    fut: F,
    sleep: Option<tokio::time::Sleep>,
    kind: FailKind,
}

impl<T, F: std::future::Future<Output = Result<T, Fail>>> std::future::Future for Within<F> {
    type Output = Result<T, Fail>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: structural pinning: `fut` and `sleep` are only ever used
        // pinned in place here, never moved out, and `Within` has no `Drop`.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: see above.
        if let Poll::Ready(v) = unsafe { Pin::new_unchecked(&mut this.fut) }.poll(cx) {
            return Poll::Ready(v);
        }
        if let Some(sleep) = this.sleep.as_mut() {
            // SAFETY: see above.
            if unsafe { Pin::new_unchecked(sleep) }.poll(cx).is_ready() {
                return Poll::Ready(Err(Fail::timeout(this.kind)));
            }
        }
        Poll::Pending
    }
}

/// Writes all of `data` within `timeout`.
pub async fn write_all(w: &Writer, data: &[u8], timeout: Option<Duration>) -> Result<(), Fail> {
    let deadline = timeout.map(|t| Instant::now() + t);
    within(deadline, FailKind::Send, async {
        let mut g = w.lock().await;
        g.write_all(data)
            .await
            .map_err(|e| Fail::io(FailKind::Send, &e))?;
        g.flush().await.map_err(|e| Fail::io(FailKind::Send, &e))
    })
    .await
}

/// Writes `data` without waiting when the socket takes it all at once
/// (the usual case for a small push).
pub fn try_write(w: &Writer, data: &[u8]) -> Result<TryWrite, Fail> {
    let Ok(g) = Arc::clone(w).try_lock_owned() else {
        return Ok(TryWrite::Busy);
    };
    // TLS records go through the async path (rustls buffers them).
    let attempt = |d: &[u8]| match &*g {
        WriteHalf::Plain(h) => Some(h.try_write(d)),
        WriteHalf::Unix(h) => Some(h.try_write(d)),
        WriteHalf::Tls(_) => None,
    };
    if matches!(&*g, WriteHalf::Tls(_)) {
        return Ok(TryWrite::Busy);
    }
    let mut done = 0;
    while done < data.len() {
        let Some(r) = attempt(&data[done..]) else {
            return Ok(TryWrite::Busy);
        };
        match r {
            Ok(0) => return Err(Fail::reset()),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Fail::io(FailKind::Send, &e)),
        }
    }
    if done == data.len() {
        return Ok(TryWrite::Done);
    }
    Ok(TryWrite::Rest(g, done))
}

/// Writes the rest of a frame [`try_write`] started, with its lock held.
pub async fn write_rest(
    mut g: tokio::sync::OwnedMutexGuard<WriteHalf>,
    data: &[u8],
    timeout: Option<Duration>,
) -> Result<(), Fail> {
    let deadline = timeout.map(|t| Instant::now() + t);
    within(deadline, FailKind::Send, async move {
        g.write_all(data)
            .await
            .map_err(|e| Fail::io(FailKind::Send, &e))?;
        g.flush().await.map_err(|e| Fail::io(FailKind::Send, &e))
    })
    .await
}

/// True when the idle connection behind `fd` is still open (no EOF or
/// error waiting): a keep-alive connection is checked before reuse.
pub fn is_alive(fd: i32) -> bool {
    let mut b = [0u8; 1];
    // SAFETY: `fd` is an open socket owned by the caller's connection; the
    // buffer is valid for one byte and MSG_PEEK leaves the data queued.
    let n = unsafe {
        libc::recv(
            fd,
            b.as_mut_ptr().cast(),
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    if n > 0 {
        return true;
    }
    n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::WouldBlock
}

/// Shuts both directions of `fd` down, so an operation waiting on it
/// returns (`close()` while another coroutine reads).
pub fn shutdown_fd(fd: i32) {
    // SAFETY: shutdown(2) on a descriptor the caller owns; no memory involved.
    unsafe {
        libc::shutdown(fd, libc::SHUT_RDWR);
    }
}

impl Reader {
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.local
    }

    pub fn peer_addr(&self) -> Option<SocketAddr> {
        self.peer
    }

    /// The server's certificate in PEM (TLS connections).
    pub fn peer_cert(&self) -> Option<String> {
        self.peer_cert.clone()
    }

    /// Reads more bytes into the buffer; false on EOF.
    async fn fill(&mut self) -> Result<bool, Fail> {
        if self.buf.capacity() - self.buf.len() < 4096 {
            self.buf.reserve(16 * 1024);
        }
        match self.half.read_buf(&mut self.buf).await {
            Ok(0) => Ok(false),
            Ok(_) => Ok(true),
            Err(e) => Err(Fail::io(FailKind::Reset, &e)),
        }
    }
}

// ---------------------------------------------------------------- requests

/// One part of a multipart body.
pub enum Part {
    /// A form field (`setData()` array next to uploads).
    Field { name: String, value: Vec<u8> },
    /// `addFile()`: `size` bytes of `path` from `offset`.
    File {
        name: String,
        filename: String,
        mime: String,
        path: String,
        offset: u64,
        size: u64,
    },
    /// `addData()`: the bytes themselves.
    Data {
        name: String,
        filename: String,
        mime: String,
        content: Vec<u8>,
    },
}

/// The request body.
pub enum Body {
    None,
    /// Sent as is with `content_type` when given.
    Raw {
        data: Vec<u8>,
        content_type: Option<&'static str>,
    },
    Multipart(Vec<Part>),
}

/// What to send: built by the PHP layer from the client's properties.
pub struct RequestSpec {
    pub method: String,
    pub path: String,
    /// `Host` value (a user `Host` header wins).
    pub host: String,
    /// User headers in order; `Host` and `Content-Length` are skipped.
    pub headers: Vec<(String, Vec<u8>)>,
    /// Cookies as `name=value` pairs (values already URL-encoded).
    pub cookies: Vec<(String, Vec<u8>)>,
    pub body: Body,
    pub keep_alive: bool,
    /// Send `Accept-Encoding: gzip, deflate, br` unless the user set one.
    pub accept_encoding: bool,
    /// `Authorization` from `setBasicAuth()`.
    pub basic_auth: Option<String>,
}

fn next_random() -> u64 {
    thread_local! {
        static SEED: Cell<u64> = Cell::new({
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0x9e37_79b9);
            t ^ (std::process::id() as u64) << 32 ^ 0x2545_f491_4f6c_dd1d
        });
    }
    // xorshift64*: masks and nonces only need to be unpredictable to
    // intermediaries, not cryptographically strong.
    SEED.with(|s| {
        let mut x = s.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        s.set(x);
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    })
}

/// A random multipart boundary in Swoole's shape.
fn boundary() -> String {
    const A: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut s = String::from("----SwooleBoundary");
    while s.len() < 39 {
        s.push(A[(next_random() % A.len() as u64) as usize] as char);
    }
    s
}

fn read_part(path: &str, offset: u64, size: u64, out: &mut Vec<u8>) -> io::Result<()> {
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(offset))?;
    let before = out.len();
    f.take(size).read_to_end(out)?;
    if (out.len() - before) as u64 != size {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("{path} is shorter than expected"),
        ));
    }
    Ok(())
}

/// The request head and body as bytes (files of `addFile()` are read here).
pub fn build_request(spec: &RequestSpec) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(spec.method.as_bytes());
    out.push(b' ');
    out.extend_from_slice(spec.path.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\n");
    let host = spec
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("host"))
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| spec.host.as_bytes().to_vec());
    out.extend_from_slice(b"Host: ");
    out.extend_from_slice(&host);
    out.extend_from_slice(b"\r\n");
    let mut has_connection = false;
    let mut has_encoding = false;
    let mut has_length = false;
    for (k, v) in &spec.headers {
        if k.eq_ignore_ascii_case("host") {
            continue;
        }
        if k.eq_ignore_ascii_case("content-length") {
            has_length = true;
            continue;
        }
        has_connection |= k.eq_ignore_ascii_case("connection");
        has_encoding |= k.eq_ignore_ascii_case("accept-encoding");
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v);
        out.extend_from_slice(b"\r\n");
    }
    if let Some(auth) = &spec.basic_auth {
        out.extend_from_slice(b"Authorization: ");
        out.extend_from_slice(auth.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    if !has_connection {
        out.extend_from_slice(if spec.keep_alive {
            b"Connection: keep-alive\r\n".as_slice()
        } else {
            b"Connection: closed\r\n".as_slice()
        });
    }
    if spec.accept_encoding && !has_encoding {
        out.extend_from_slice(b"Accept-Encoding: gzip, deflate, br\r\n");
    }
    if !spec.cookies.is_empty() {
        out.extend_from_slice(b"Cookie: ");
        for (i, (k, v)) in spec.cookies.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b"; ");
            }
            out.extend_from_slice(k.as_bytes());
            out.push(b'=');
            out.extend_from_slice(v);
        }
        out.extend_from_slice(b"\r\n");
    }
    match &spec.body {
        Body::None => {
            if has_length {
                out.extend_from_slice(b"Content-Length: 0\r\n");
            }
            out.extend_from_slice(b"\r\n");
        }
        Body::Raw { data, content_type } => {
            if let Some(ct) = content_type {
                out.extend_from_slice(b"Content-Type: ");
                out.extend_from_slice(ct.as_bytes());
                out.extend_from_slice(b"\r\n");
            }
            out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", data.len()).as_bytes());
            out.extend_from_slice(data);
        }
        Body::Multipart(parts) => {
            let b = boundary();
            let mut body = Vec::new();
            for p in parts {
                body.extend_from_slice(b"--");
                body.extend_from_slice(b.as_bytes());
                body.extend_from_slice(b"\r\n");
                match p {
                    Part::Field { name, value } => {
                        body.extend_from_slice(
                            format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n")
                                .as_bytes(),
                        );
                        body.extend_from_slice(value);
                    }
                    Part::File {
                        name,
                        filename,
                        mime,
                        path,
                        offset,
                        size,
                    } => {
                        body.extend_from_slice(
                            format!(
                                "Content-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: {mime}\r\n\r\n"
                            )
                            .as_bytes(),
                        );
                        read_part(path, *offset, *size, &mut body)?;
                    }
                    Part::Data {
                        name,
                        filename,
                        mime,
                        content,
                    } => {
                        body.extend_from_slice(
                            format!(
                                "Content-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: {mime}\r\n\r\n"
                            )
                            .as_bytes(),
                        );
                        body.extend_from_slice(content);
                    }
                }
                body.extend_from_slice(b"\r\n");
            }
            body.extend_from_slice(format!("--{b}--\r\n").as_bytes());
            out.extend_from_slice(
                format!("Content-Type: multipart/form-data; boundary={b}\r\n").as_bytes(),
            );
            out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
            out.extend_from_slice(&body);
        }
    }
    Ok(out)
}

// --------------------------------------------------------------- responses

/// How to read a response.
#[derive(Default)]
pub struct ResponseOpts {
    /// The request was HEAD: no body follows.
    pub head: bool,
    /// Header names lowercased (Swoole's `lowercase_header`, on by default).
    pub lowercase: bool,
    /// Decode a gzip/deflate body (`body_decompression`, on by default).
    pub decompress: bool,
    /// `download()`: write the body to this file from this offset.
    pub download: Option<(String, u64)>,
}

/// A parsed response.
#[derive(Debug, Default)]
pub struct Response {
    pub status: u16,
    /// Headers in order, names lowercased when asked.
    pub headers: Vec<(String, Bytes)>,
    pub body: Vec<u8>,
    /// The connection may be reused.
    pub keep_alive: bool,
}

impl Response {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| &v[..])
    }
}

fn find_crlf2(b: &[u8], from: usize) -> Option<usize> {
    b[from..]
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|p| p + from)
}

fn has_token(v: &[u8], token: &str) -> bool {
    String::from_utf8_lossy(v)
        .split(',')
        .any(|t| t.trim().eq_ignore_ascii_case(token))
}

/// Where the body goes: memory, or the download file.
struct Sink {
    body: Vec<u8>,
    file: Option<std::fs::File>,
    download: Option<(String, u64)>,
}

impl Sink {
    fn put(&mut self, data: &[u8]) -> Result<(), Fail> {
        if data.is_empty() {
            return Ok(());
        }
        if let Some((path, offset)) = self.download.take() {
            let f = (|| -> io::Result<std::fs::File> {
                let mut f = std::fs::OpenOptions::new()
                    .create(true)
                    .write(true)
                    .truncate(offset == 0)
                    .open(&path)?;
                if offset > 0 {
                    f.seek(SeekFrom::Start(offset))?;
                }
                Ok(f)
            })()
            .map_err(|e| Fail {
                kind: FailKind::Reset,
                code: e.raw_os_error().unwrap_or(libc::EIO),
                msg: format!("open({path}) failed: {e}"),
            })?;
            self.file = Some(f);
        }
        match &mut self.file {
            Some(f) => f.write_all(data).map_err(|e| Fail::io(FailKind::Reset, &e)),
            None => {
                self.body.extend_from_slice(data);
                Ok(())
            }
        }
    }
}

/// Reads one response (skipping 1xx interim answers other than 101)
/// within `timeout`. A 101 leaves what follows it in the buffer.
pub async fn read_response(
    r: &mut Reader,
    opts: &ResponseOpts,
    timeout: Option<Duration>,
) -> Result<Response, Fail> {
    let deadline = timeout.map(|t| Instant::now() + t);
    within(deadline, FailKind::Timeout, read_response_inner(r, opts)).await
}

/// How the rest of a response's body is framed ([`read_piece`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// Before the next chunk's size line.
    Chunked,
    /// Inside a chunk: this many bytes of it left.
    InChunk(u64),
    /// This many bytes left.
    Length(u64),
    /// Until the server closes.
    UntilClose,
    Done,
}

/// The body of a response whose head [`read_head`] read.
#[derive(Debug)]
pub struct BodyReader {
    framing: Framing,
    lowercase: bool,
}

/// A chunk up to this size is handed over whole by [`read_piece`]; a
/// larger one in the pieces it arrives in.
const WHOLE_CHUNK: u64 = 64 * 1024;

/// Reads the head of one response (skipping 1xx interim answers other
/// than 101, which leaves what follows it in the buffer) within `timeout`;
/// the body is read with [`read_piece`].
pub async fn read_head(
    r: &mut Reader,
    opts: &ResponseOpts,
    timeout: Option<Duration>,
) -> Result<(Response, BodyReader), Fail> {
    let deadline = timeout.map(|t| Instant::now() + t);
    within(deadline, FailKind::Timeout, read_head_inner(r, opts)).await
}

async fn read_head_inner(
    r: &mut Reader,
    opts: &ResponseOpts,
) -> Result<(Response, BodyReader), Fail> {
    loop {
        let mut scanned = 0;
        let end = loop {
            if let Some(p) = find_crlf2(&r.buf, scanned) {
                break p;
            }
            if r.buf.len() > MAX_HEAD {
                return Err(Fail::protocol("Http header too large"));
            }
            scanned = r.buf.len().saturating_sub(3);
            if !r.fill().await? {
                return Err(Fail::reset());
            }
        };
        let head = r.buf.split_to(end + 4).freeze();
        let resp = parse_head(&head[..end], opts.lowercase)?;
        if (100..200).contains(&resp.status) && resp.status != 101 {
            continue;
        }
        let chunked = resp
            .header("transfer-encoding")
            .is_some_and(|v| has_token(v, "chunked"));
        let length = resp
            .header("content-length")
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let framing =
            if resp.status == 101 || opts.head || resp.status == 204 || resp.status == 304 {
                Framing::Done
            } else if chunked {
                Framing::Chunked
            } else if let Some(n) = length {
                Framing::Length(n)
            } else if resp.header("content-type").is_some_and(|v| {
                v.len() >= 17 && v[..17].eq_ignore_ascii_case(b"text/event-stream")
            }) {
                // An event stream without a length ends with its head (as
                // Swoole's client does): the events are read from `$socket`.
                Framing::Done
            } else {
                Framing::UntilClose
            };
        let body = BodyReader {
            framing,
            lowercase: opts.lowercase,
        };
        return Ok((resp, body));
    }
}

/// The next piece of the body: a whole chunk of a chunked body (up to
/// [`WHOLE_CHUNK`]), else what arrived; `None` at its end (a chunked
/// body's trailer fields then joined `resp`'s headers; a body that ends
/// with the connection made `resp` not reusable).
pub async fn read_piece(
    r: &mut Reader,
    b: &mut BodyReader,
    resp: &mut Response,
) -> Result<Option<Bytes>, Fail> {
    loop {
        match b.framing {
            Framing::Done => return Ok(None),
            Framing::Length(0) => b.framing = Framing::Done,
            Framing::Length(n) => {
                if r.buf.is_empty() && !r.fill().await? {
                    return Err(Fail::reset());
                }
                let take = (n as usize).min(r.buf.len());
                b.framing = Framing::Length(n - take as u64);
                return Ok(Some(r.buf.split_to(take).freeze()));
            }
            Framing::UntilClose => {
                if !r.buf.is_empty() {
                    return Ok(Some(r.buf.split().freeze()));
                }
                if !r.fill().await? {
                    resp.keep_alive = false;
                    b.framing = Framing::Done;
                }
            }
            Framing::Chunked => {
                let size = read_chunk_size(r).await?;
                if size == 0 {
                    read_trailers(r, resp, b.lowercase).await?;
                    b.framing = Framing::Done;
                    continue;
                }
                if size <= WHOLE_CHUNK {
                    while (r.buf.len() as u64) < size + 2 {
                        if !r.fill().await? {
                            return Err(Fail::reset());
                        }
                    }
                    let piece = r.buf.split_to(size as usize).freeze();
                    chunk_end(r)?;
                    return Ok(Some(piece));
                }
                b.framing = Framing::InChunk(size);
            }
            Framing::InChunk(left) => {
                if r.buf.is_empty() && !r.fill().await? {
                    return Err(Fail::reset());
                }
                let take = (left as usize).min(r.buf.len());
                let piece = r.buf.split_to(take).freeze();
                let left = left - take as u64;
                if left == 0 {
                    while r.buf.len() < 2 {
                        if !r.fill().await? {
                            return Err(Fail::reset());
                        }
                    }
                    chunk_end(r)?;
                    b.framing = Framing::Chunked;
                } else {
                    b.framing = Framing::InChunk(left);
                }
                return Ok(Some(piece));
            }
        }
    }
}

/// [`read_piece`] within `timeout`.
pub async fn read_piece_within(
    r: &mut Reader,
    b: &mut BodyReader,
    resp: &mut Response,
    timeout: Option<Duration>,
) -> Result<Option<Bytes>, Fail> {
    let deadline = timeout.map(|t| Instant::now() + t);
    within(deadline, FailKind::Timeout, read_piece(r, b, resp)).await
}

async fn read_response_inner(r: &mut Reader, opts: &ResponseOpts) -> Result<Response, Fail> {
    let (mut resp, mut reader) = read_head_inner(r, opts).await?;
    if resp.status == 101 {
        return Ok(resp);
    }
    let encoded = opts.decompress && resp.header("content-encoding").is_some_and(is_known_coding);
    // A compressed download is decoded in memory first, then written.
    let mut sink = Sink {
        body: Vec::new(),
        file: None,
        download: if encoded { None } else { opts.download.clone() },
    };
    while let Some(piece) = read_piece(r, &mut reader, &mut resp).await? {
        sink.put(&piece)?;
    }
    let mut body = sink.body;
    if encoded && !body.is_empty() {
        if let Some(plain) = resp
            .header("content-encoding")
            .and_then(|enc| decompress(enc, &body))
        {
            body = plain;
        }
    }
    if encoded && opts.download.is_some() {
        let mut file_sink = Sink {
            body: Vec::new(),
            file: None,
            download: opts.download.clone(),
        };
        file_sink.put(&body)?;
        body = Vec::new();
    }
    resp.body = body;
    Ok(resp)
}

/// A `tchar` of RFC 9110: what a header name is made of.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn parse_head(head: &[u8], lowercase: bool) -> Result<Response, Fail> {
    let text = head;
    let mut lines = text
        .split(|b| *b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let status_line = lines.next().unwrap_or_default();
    let sl = String::from_utf8_lossy(status_line);
    let mut parts = sl.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    if !version.starts_with("HTTP/1.") {
        return Err(Fail::protocol("Http invalid protocol"));
    }
    let status: u16 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .filter(|s| (100..1000).contains(s))
        .ok_or_else(|| Fail::protocol("Http invalid protocol"))?;
    let mut resp = Response {
        status,
        ..Default::default()
    };
    let mut connection: Option<Vec<u8>> = None;
    for line in lines {
        if line.is_empty() {
            continue;
        }
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            return Err(Fail::protocol("Http invalid protocol"));
        };
        let raw = &line[..colon];
        // A field name is a token (RFC 9110 5.1), as llhttp checks it.
        if raw.is_empty() || !raw.iter().all(|b| is_tchar(*b)) {
            return Err(Fail::protocol("Http invalid protocol"));
        }
        let name = String::from_utf8_lossy(raw).into_owned();
        let value = line[colon + 1..].trim_ascii();
        if name.eq_ignore_ascii_case("connection") {
            connection = Some(value.to_vec());
        }
        let name = if lowercase {
            name.to_ascii_lowercase()
        } else {
            name
        };
        resp.headers.push((name, Bytes::copy_from_slice(value)));
    }
    resp.keep_alive = match (&connection, version) {
        (Some(c), _) if has_token(c, "close") => false,
        (Some(c), _) if has_token(c, "keep-alive") => true,
        (_, "HTTP/1.0") => false,
        _ => true,
    };
    Ok(resp)
}

/// A chunk's size line.
async fn read_chunk_size(r: &mut Reader) -> Result<u64, Fail> {
    let line_end = loop {
        if let Some(p) = r.buf.windows(2).position(|w| w == b"\r\n") {
            break p;
        }
        if r.buf.len() > 4096 {
            return Err(Fail::protocol("Http invalid protocol"));
        }
        if !r.fill().await? {
            return Err(Fail::reset());
        }
    };
    let line = r.buf.split_to(line_end + 2);
    let hex = String::from_utf8_lossy(&line[..line_end]);
    let hex = hex.split(';').next().unwrap_or("").trim();
    u64::from_str_radix(hex, 16).map_err(|_| Fail::protocol("Http invalid protocol"))
}

/// The CRLF after a chunk's data (in the buffer).
fn chunk_end(r: &mut Reader) -> Result<(), Fail> {
    if &r.buf[..2] != b"\r\n" {
        return Err(Fail::protocol("Http invalid protocol"));
    }
    r.buf.advance(2);
    Ok(())
}

/// The trailer section after the last chunk, up to the empty line; its
/// fields join `resp`'s headers (as Swoole's client puts them in
/// `$headers`).
async fn read_trailers(r: &mut Reader, resp: &mut Response, lowercase: bool) -> Result<(), Fail> {
    loop {
        if let Some(p) = r.buf.windows(2).position(|w| w == b"\r\n") {
            let l = r.buf.split_to(p + 2);
            if p == 0 {
                return Ok(());
            }
            add_trailer(resp, &l[..p], lowercase);
            continue;
        }
        if r.buf.len() > MAX_HEAD {
            return Err(Fail::protocol("Http header too large"));
        }
        if !r.fill().await? {
            // A server that closes right after the last chunk.
            return Ok(());
        }
    }
}

/// One trailer line `name: value` into `resp`'s headers (a line that is
/// not a field is ignored, as a trailer changes nothing of the body).
fn add_trailer(resp: &mut Response, line: &[u8], lowercase: bool) {
    let Some(colon) = line.iter().position(|b| *b == b':') else {
        return;
    };
    let raw = &line[..colon];
    if raw.is_empty() || !raw.iter().all(|b| is_tchar(*b)) {
        return;
    }
    let name = String::from_utf8_lossy(raw);
    let name = if lowercase {
        name.to_ascii_lowercase()
    } else {
        name.into_owned()
    };
    // (Swoole keeps a trailer value's trailing white space.)
    let value = Bytes::copy_from_slice(line[colon + 1..].trim_ascii_start());
    resp.headers.push((name, value));
}

fn is_known_coding(enc: &[u8]) -> bool {
    let e = String::from_utf8_lossy(enc).trim().to_ascii_lowercase();
    e.starts_with("gzip") || e.starts_with("deflate") || e.starts_with("br")
}

/// Decodes a gzip or deflate body; None when `enc` is another coding or
/// the data does not decode (the raw body is kept then, as Swoole does).
pub fn decompress(enc: &[u8], body: &[u8]) -> Option<Vec<u8>> {
    let enc = String::from_utf8_lossy(enc).trim().to_ascii_lowercase();
    let mut out = Vec::with_capacity(body.len() * 3);
    if enc.starts_with("gzip") {
        flate2::read::MultiGzDecoder::new(body)
            .read_to_end(&mut out)
            .ok()?;
        return Some(out);
    }
    if enc.starts_with("br") {
        brotli::Decompressor::new(body, 4096)
            .read_to_end(&mut out)
            .ok()?;
        return Some(out);
    }
    if enc.starts_with("deflate") {
        if flate2::read::ZlibDecoder::new(body)
            .read_to_end(&mut out)
            .is_ok()
        {
            return Some(out);
        }
        out.clear();
        flate2::read::DeflateDecoder::new(body)
            .read_to_end(&mut out)
            .ok()?;
        return Some(out);
    }
    None
}

/// Percent-decodes a cookie value, `+` as a space (PHP's `urldecode`).
fn url_decode(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len());
    let mut i = 0;
    while i < v.len() {
        if v[i] == b'%' && i + 2 < v.len() {
            let h = std::str::from_utf8(&v[i + 1..i + 3])
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok());
            if let Some(b) = h {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(if v[i] == b'+' { b' ' } else { v[i] });
        i += 1;
    }
    out
}

/// The name and (URL-decoded) value of a `Set-Cookie` header; the name is
/// empty for a header without `=`.
pub fn parse_set_cookie(v: &[u8]) -> (String, Vec<u8>) {
    let first = v.split(|b| *b == b';').next().unwrap_or_default();
    match first.iter().position(|b| *b == b'=') {
        Some(eq) => (
            String::from_utf8_lossy(first[..eq].trim_ascii()).into_owned(),
            url_decode(first[eq + 1..].trim_ascii()),
        ),
        None => (String::new(), url_decode(first.trim_ascii())),
    }
}

// --------------------------------------------------------------- WebSocket

/// A fresh `Sec-WebSocket-Key` (16 random bytes, base64).
pub fn ws_key() -> String {
    let mut nonce = [0u8; 16];
    nonce[..8].copy_from_slice(&next_random().to_le_bytes());
    nonce[8..].copy_from_slice(&next_random().to_le_bytes());
    ws::base64_encode(&nonce)
}

/// A client frame, masked with a fresh key when `mask` is set.
pub fn ws_frame(opcode: u8, flags: u8, payload: &[u8], mask: bool) -> BytesMut {
    let key = mask.then(|| (next_random() as u32).to_be_bytes());
    ws::encode_masked(opcode, flags, payload, key)
}

/// A pushed message: with permessage-deflate negotiated (`deflate`), a
/// whole non-empty text or binary message is compressed and marked RSV1
/// (Swoole compresses every push once the server accepted compression).
pub fn ws_message(opcode: u8, flags: u8, payload: &[u8], mask: bool, deflate: bool) -> BytesMut {
    if deflate
        && matches!(opcode, ws::OP_TEXT | ws::OP_BINARY)
        && flags & ws::FLAG_FIN != 0
        && !payload.is_empty()
    {
        if let Some(c) = ws_deflate::compress(payload) {
            return ws_frame(opcode, flags | ws::FLAG_RSV1, &c, mask);
        }
    }
    ws_frame(opcode, flags & !ws::FLAG_RSV1, payload, mask)
}

/// The `Sec-WebSocket-Extensions` offer of `websocket_compression`
/// (Swoole's: no context takeover either way, so each message stands alone).
pub const WS_DEFLATE_OFFER: &str = ws_deflate::RESPONSE;

/// True when the server's `Sec-WebSocket-Extensions` accepted the offer.
pub fn ws_deflate_accepted(resp: &Response) -> bool {
    resp.header("sec-websocket-extensions").is_some_and(|v| {
        String::from_utf8_lossy(v).split(',').any(|e| {
            e.split(';')
                .next()
                .is_some_and(|n| n.trim().eq_ignore_ascii_case("permessage-deflate"))
        })
    })
}

/// A whole data message as `recv()` returns it: inflated when RSV1 says it
/// is compressed (flags then carry RSV1 and `FLAG_COMPRESS`, as in Swoole).
fn data_message(
    opcode: u8,
    rsv: u8,
    data: Bytes,
    ctl: WsControl,
    max: usize,
) -> Result<WsEvent, Fail> {
    let mut flags = ws::FLAG_FIN | rsv_flags(rsv);
    if rsv & 1 == 0 {
        return Ok(WsEvent::Frame {
            opcode,
            flags,
            data,
        });
    }
    if !ctl.deflate {
        return Err(Fail {
            kind: FailKind::Reset,
            code: 508,
            msg: "a compressed message without permessage-deflate".into(),
        });
    }
    let plain = ws_deflate::decompress(&data, max).map_err(|e| Fail {
        kind: FailKind::Reset,
        code: 508,
        msg: format!("websocket message inflate failed ({e:?})"),
    })?;
    flags |= ws::FLAG_COMPRESS;
    Ok(WsEvent::Frame {
        opcode,
        flags,
        data: Bytes::from(plain),
    })
}

/// Which control frames `recv()` returns instead of handling them
/// (`open_websocket_ping_frame`, `_pong_frame`, `_close_frame`).
#[derive(Debug, Clone, Copy, Default)]
pub struct WsControl {
    pub ping: bool,
    pub pong: bool,
    pub close: bool,
    /// Mask the automatic replies (pong, close echo).
    pub mask: bool,
    /// permessage-deflate was negotiated: RSV1 messages are inflated.
    pub deflate: bool,
}

/// What `recv()` got.
#[derive(Debug, PartialEq, Eq)]
pub enum WsEvent {
    /// A whole message or a control frame. `flags` are
    /// `SWOOLE_WEBSOCKET_FLAG_*` (FIN, RSV bits).
    Frame { opcode: u8, flags: u8, data: Bytes },
    /// The server closed the connection.
    Closed,
}

/// Reads the next message within `timeout`: fragments are joined, a ping
/// is answered with a pong, a close frame is echoed (unless `ctl` asks for
/// them). A timeout leaves the connection usable.
pub async fn ws_recv(
    r: &mut Reader,
    w: &Writer,
    ctl: WsControl,
    max: usize,
    timeout: Option<Duration>,
) -> Result<WsEvent, Fail> {
    let deadline = timeout.map(|t| Instant::now() + t);
    within(deadline, FailKind::Timeout, ws_recv_inner(r, w, ctl, max)).await
}

/// Swoole's texts for a broken fragment sequence (RFC 6455 5.4).
const WS_LONE_CONTINUATION: &str = "A continuation frame cannot stand alone and MUST be preceded by an initial frame whose opcode indicates either text or binary data.";
const WS_NOT_CONTINUATION: &str = "All fragments of a message, except for the initial frame, must use the continuation frame opcode(0).";

/// A broken fragment sequence: logged as Swoole's `websocket::recv_frame()`
/// warning, and the connection is given up.
fn fragment_error(msg: &str) -> Fail {
    crate::engine::log::log(
        crate::engine::log::Level::Warning,
        &format!("websocket::recv_frame(): {msg}"),
    );
    Fail {
        kind: FailKind::Reset,
        code: 508,
        msg: msg.into(),
    }
}

fn rsv_flags(rsv: u8) -> u8 {
    (rsv & 7) << 2
}

async fn ws_recv_inner(
    r: &mut Reader,
    w: &Writer,
    ctl: WsControl,
    max: usize,
) -> Result<WsEvent, Fail> {
    loop {
        let frame = match ws::parse_server_frame(&mut r.buf, max) {
            Ok(Some(f)) => f,
            Ok(None) => {
                if !r.fill().await? {
                    return Ok(WsEvent::Closed);
                }
                continue;
            }
            Err(_) => {
                return Err(Fail {
                    kind: FailKind::Reset,
                    code: 508,
                    msg: "websocket protocol error".into(),
                })
            }
        };
        match frame.opcode {
            ws::OP_PING if !ctl.ping => {
                let pong = ws_frame(ws::OP_PONG, ws::FLAG_FIN, &frame.payload, ctl.mask);
                write_all(w, &pong, None).await?;
            }
            ws::OP_PONG if !ctl.pong => {}
            ws::OP_CLOSE if !ctl.close => {
                let echo = ws_frame(ws::OP_CLOSE, ws::FLAG_FIN, &frame.payload, ctl.mask);
                let _ = write_all(w, &echo, None).await;
            }
            ws::OP_PING | ws::OP_PONG | ws::OP_CLOSE => {
                return Ok(WsEvent::Frame {
                    opcode: frame.opcode,
                    flags: ws::FLAG_FIN,
                    data: frame.payload,
                });
            }
            ws::OP_CONTINUATION => {
                let Some((op, rsv, mut acc)) = r.partial.take() else {
                    return Err(fragment_error(WS_LONE_CONTINUATION));
                };
                if acc.len() + frame.payload.len() > max {
                    return Err(Fail {
                        kind: FailKind::Reset,
                        code: 1203,
                        msg: "websocket message too large".into(),
                    });
                }
                acc.extend_from_slice(&frame.payload);
                if frame.fin {
                    return data_message(op, rsv, acc.freeze(), ctl, max);
                }
                r.partial = Some((op, rsv, acc));
            }
            op => {
                if r.partial.is_some() {
                    return Err(fragment_error(WS_NOT_CONTINUATION));
                }
                if frame.fin {
                    return data_message(op, frame.rsv, frame.payload, ctl, max);
                }
                r.partial = Some((op, frame.rsv, BytesMut::from(&frame.payload[..])));
            }
        }
    }
}

/// A message already complete in the buffer, without waiting (the fast
/// path of `recv()`): `None` when more bytes or a reply are needed.
pub fn ws_try_buffered(r: &mut Reader, max: usize) -> Option<WsEvent> {
    if r.partial.is_some() || r.buf.len() < 2 {
        return None;
    }
    // Only a whole data frame is taken here; anything else goes the slow way.
    // Only a whole, uncompressed data frame is taken here (no RSV bit);
    // anything else goes the slow way.
    let op = r.buf[0] & 0x0f;
    if r.buf[0] & 0xf0 != 0x80 || !(op == ws::OP_TEXT || op == ws::OP_BINARY) {
        return None;
    }
    match ws::parse_server_frame(&mut r.buf, max) {
        Ok(Some(f)) => Some(WsEvent::Frame {
            opcode: f.opcode,
            flags: ws::FLAG_FIN | rsv_flags(f.rsv),
            data: f.payload,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    #[test]
    fn header_names_must_be_tokens() {
        let ok = parse_head(b"HTTP/1.1 200 OK\r\n!$%&*+-.'^_`|~az: v", true).expect("token");
        assert_eq!(ok.headers[0].0, "!$%&*+-.'^_`|~az");
        for bad in [
            "\"", "x(", "x)", "x,", "/", "x;", "x<", "x=", "x>", "x@", "x[", "x\\", "x]", "x{",
            "}", "a b", "",
        ] {
            let head = format!("HTTP/1.1 200 OK\r\n{bad}: v");
            let e = parse_head(head.as_bytes(), true).expect_err(bad);
            assert_eq!(e.code, ERR_HTTP_INVALID_PROTOCOL);
            assert_eq!(e.msg, "Http invalid protocol");
        }
    }

    #[test]
    fn unix_hosts() {
        assert_eq!(
            unix_path("unix:/tmp/a.sock").as_deref(),
            Some("/tmp/a.sock")
        );
        assert_eq!(
            unix_path("unix:///tmp/a.sock").as_deref(),
            Some("/tmp/a.sock")
        );
        assert_eq!(unix_path("unix:tmp"), None);
        assert_eq!(unix_path("127.0.0.1"), None);
    }

    #[test]
    fn event_stream_ends_with_its_head() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("rt");
        rt.block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = l.local_addr().expect("addr");
            let srv = tokio::spawn(async move {
                let (mut s, _) = l.accept().await.expect("accept");
                let mut b = [0u8; 1024];
                let _ = s.read(&mut b).await;
                s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
                    .await
                    .expect("write");
                // Held open: the client must not wait for the end.
                tokio::time::sleep(Duration::from_secs(5)).await;
            });
            let sock = new_socket(&addr).expect("socket");
            let (mut r, w) = connect(sock, addr, None).await.expect("connect");
            write_all(&w, b"GET / HTTP/1.1\r\n\r\n", None)
                .await
                .expect("send");
            let opts = ResponseOpts::default();
            let resp = read_response(&mut r, &opts, Some(Duration::from_secs(2)))
                .await
                .expect("response");
            assert!(resp.body.is_empty());
            assert!(resp.keep_alive);
            srv.abort();
        });
    }

    #[test]
    fn brotli_bodies_decode() {
        let text = b"brotli body, brotli body, brotli body".repeat(20);
        let mut enc = Vec::new();
        {
            let mut w = brotli::CompressorWriter::new(&mut enc, 4096, 5, 22);
            w.write_all(&text).expect("compress");
        }
        assert!(enc.len() < text.len());
        assert_eq!(decompress(b"br", &enc).as_deref(), Some(text.as_slice()));
        assert!(is_known_coding(b" BR "));
        assert_eq!(decompress(b"br", b"not brotli"), None);
    }

    #[test]
    fn request_offers_br() {
        let spec = RequestSpec {
            method: "GET".into(),
            path: "/".into(),
            host: "h".into(),
            headers: vec![],
            cookies: vec![],
            body: Body::None,
            keep_alive: true,
            accept_encoding: true,
            basic_auth: None,
        };
        let out = build_request(&spec).expect("request");
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("Accept-Encoding: gzip, deflate, br\r\n"));
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
    }

    /// A server that reads one request head, answers `reply`, then keeps
    /// the socket open for `linger`.
    async fn one_shot(
        reply: Vec<u8>,
        linger: Duration,
    ) -> (SocketAddr, tokio::task::JoinHandle<Vec<u8>>) {
        let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = l.local_addr().expect("addr");
        let h = tokio::spawn(async move {
            let (mut s, _) = l.accept().await.expect("accept");
            let mut got = Vec::new();
            let mut b = [0u8; 4096];
            while find_crlf2(&got, 0).is_none() {
                let n = s.read(&mut b).await.expect("read");
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&b[..n]);
            }
            s.write_all(&reply).await.expect("write");
            tokio::time::sleep(linger).await;
            got
        });
        (addr, h)
    }

    async fn client(addr: SocketAddr) -> (Reader, Writer) {
        connect(
            new_socket(&addr).expect("socket"),
            addr,
            Some(Duration::from_secs(2)),
        )
        .await
        .expect("connect")
    }

    fn spec(path: &str) -> RequestSpec {
        RequestSpec {
            method: "GET".into(),
            path: path.into(),
            host: "127.0.0.1".into(),
            headers: vec![("X-A".into(), b"1".to_vec())],
            cookies: vec![("k".into(), b"v".to_vec())],
            body: Body::None,
            keep_alive: true,
            accept_encoding: false,
            basic_auth: None,
        }
    }

    #[test]
    fn request_bytes() {
        let out = build_request(&spec("/x?y=1")).expect("build");
        let s = String::from_utf8(out).expect("utf8");
        assert!(
            s.starts_with("GET /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r\n"),
            "{s}"
        );
        assert!(s.contains("Connection: keep-alive\r\n"), "{s}");
        assert!(s.ends_with("Cookie: k=v\r\n\r\n"), "{s}");
        let mut sp = spec("/");
        sp.body = Body::Multipart(vec![
            Part::Field {
                name: "a".into(),
                value: b"1".to_vec(),
            },
            Part::Data {
                name: "f".into(),
                filename: "f.txt".into(),
                mime: "text/plain".into(),
                content: b"hello".to_vec(),
            },
        ]);
        let s = String::from_utf8(build_request(&sp).expect("build")).expect("utf8");
        let body = &s[s.find("\r\n\r\n").expect("head") + 4..];
        let len: usize = s
            .split("Content-Length: ")
            .nth(1)
            .and_then(|r| r.split("\r\n").next())
            .and_then(|n| n.parse().ok())
            .expect("len");
        assert_eq!(body.len(), len);
        assert!(
            body.contains("filename=\"f.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n"),
            "{body}"
        );
    }

    #[test]
    fn content_length_chunked_and_close() {
        rt().block_on(async {
            let (addr, srv) = one_shot(
                b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: a=b%20c; path=/\r\n\r\nhello".to_vec(),
                Duration::from_millis(50),
            )
            .await;
            let (mut r, w) = client(addr).await;
            write_all(&w, &build_request(&spec("/")).expect("b"), None).await.expect("send");
            let opts = ResponseOpts { lowercase: true, decompress: true, ..Default::default() };
            let resp = read_response(&mut r, &opts, Some(Duration::from_secs(2))).await.expect("resp");
            assert_eq!(resp.status, 200);
            assert_eq!(resp.body, b"hello");
            assert!(resp.keep_alive);
            let sc = resp.header("set-cookie").expect("cookie");
            assert_eq!(parse_set_cookie(sc), ("a".to_string(), b"b c".to_vec()));
            let got = srv.await.expect("srv");
            assert!(got.starts_with(b"GET / HTTP/1.1\r\n"));

            let (addr, _srv) = one_shot(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4;x=y\r\ndefg\r\n0\r\n\r\n".to_vec(),
                Duration::from_millis(50),
            )
            .await;
            let (mut r, w) = client(addr).await;
            write_all(&w, b"GET / HTTP/1.1\r\n\r\n", None).await.expect("send");
            let resp = read_response(&mut r, &opts, None).await.expect("resp");
            assert_eq!(resp.body, b"abcdefg");

            let (addr, _srv) = one_shot(
                b"HTTP/1.0 200 OK\r\n\r\nuntil close".to_vec(),
                Duration::from_millis(0),
            )
            .await;
            let (mut r, w) = client(addr).await;
            write_all(&w, b"GET / HTTP/1.1\r\n\r\n", None).await.expect("send");
            let resp = read_response(&mut r, &opts, None).await.expect("resp");
            assert_eq!(resp.body, b"until close");
            assert!(!resp.keep_alive);
        });
    }

    #[test]
    fn gzip_body_decoded() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(b"zipped text").expect("gz");
        let gz = enc.finish().expect("gz");
        assert_eq!(
            decompress(b"gzip", &gz).as_deref(),
            Some(&b"zipped text"[..])
        );
        assert_eq!(decompress(b"br", &gz), None);
    }

    #[test]
    fn timeout_and_reset() {
        rt().block_on(async {
            let (addr, _srv) = one_shot(Vec::new(), Duration::from_millis(500)).await;
            let (mut r, w) = client(addr).await;
            write_all(&w, b"GET / HTTP/1.1\r\n\r\n", None)
                .await
                .expect("send");
            let e = read_response(
                &mut r,
                &ResponseOpts::default(),
                Some(Duration::from_millis(50)),
            )
            .await
            .expect_err("timeout");
            assert_eq!(e.kind, FailKind::Timeout);
            assert_eq!(e.code, libc::ETIMEDOUT);

            let (addr, _srv) = one_shot(
                b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort".to_vec(),
                Duration::ZERO,
            )
            .await;
            let (mut r, w) = client(addr).await;
            write_all(&w, b"GET / HTTP/1.1\r\n\r\n", None)
                .await
                .expect("send");
            let e = read_response(&mut r, &ResponseOpts::default(), None)
                .await
                .expect_err("reset");
            assert_eq!(e.kind, FailKind::Reset);
            assert_eq!(e.code, libc::ECONNRESET);

            // Nothing listens on a port we just released.
            let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = l.local_addr().expect("addr");
            drop(l);
            let e = connect(new_socket(&addr).expect("s"), addr, None)
                .await
                .err()
                .expect("refused");
            assert_eq!((e.kind, e.code), (FailKind::Connect, libc::ECONNREFUSED));
            assert_eq!(e.msg, "Connection refused");
        });
    }

    #[test]
    fn websocket_round_trip() {
        rt().block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = l.local_addr().expect("addr");
            let srv = tokio::spawn(async move {
                let (mut s, _) = l.accept().await.expect("accept");
                let mut buf = BytesMut::new();
                while find_crlf2(&buf, 0).is_none() {
                    s.read_buf(&mut buf).await.expect("read");
                }
                let head = String::from_utf8_lossy(&buf).to_string();
                let key = head
                    .lines()
                    .find_map(|l| l.strip_prefix("Sec-WebSocket-Key: "))
                    .expect("key")
                    .trim()
                    .to_string();
                let end = find_crlf2(&buf, 0).expect("end");
                buf.advance(end + 4);
                let mut out = format!(
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {}\r\n\r\n",
                    ws::accept_key(key.as_bytes())
                )
                .into_bytes();
                // Sent with the 101: a ping, then a message in two fragments.
                out.extend_from_slice(&ws::encode(ws::OP_PING, ws::FLAG_FIN, b"p"));
                out.extend_from_slice(&ws::encode(ws::OP_TEXT, 0, b"hel"));
                out.extend_from_slice(&ws::encode(ws::OP_CONTINUATION, ws::FLAG_FIN, b"lo"));
                s.write_all(&out).await.expect("write");
                // Expect the pong, then an echo request.
                let mut frames = Vec::new();
                while frames.len() < 2 {
                    match ws::parse(&mut buf, 1 << 20) {
                        Ok(Some(f)) => frames.push(f),
                        Ok(None) => {
                            s.read_buf(&mut buf).await.expect("read");
                        }
                        Err(c) => panic!("bad client frame {c}"),
                    }
                }
                assert_eq!(frames[0].opcode, ws::OP_PONG);
                assert_eq!(&frames[0].payload[..], b"p");
                assert_eq!(frames[1].payload.len(), 70_000);
                s.write_all(&ws::encode(ws::OP_BINARY, ws::FLAG_FIN, &frames[1].payload)).await.expect("echo");
                s.write_all(&ws::encode(ws::OP_CLOSE, ws::FLAG_FIN, &ws::close::encode(ws::close::NORMAL, b"bye"))).await.expect("close");
                // The client echoes the close.
                loop {
                    match ws::parse(&mut buf, 1 << 20) {
                        Ok(Some(f)) => {
                            assert_eq!(f.opcode, ws::OP_CLOSE);
                            break;
                        }
                        Ok(None) => {
                            s.read_buf(&mut buf).await.expect("read");
                        }
                        Err(c) => panic!("bad client frame {c}"),
                    }
                }
            });
            let (mut r, w) = client(addr).await;
            let key = ws_key();
            let req = format!("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n\r\n");
            write_all(&w, req.as_bytes(), None).await.expect("send");
            let opts = ResponseOpts { lowercase: true, ..Default::default() };
            let resp = read_response(&mut r, &opts, None).await.expect("101");
            assert_eq!(resp.status, 101);
            let ctl = WsControl { mask: true, ..Default::default() };
            let ev = ws_recv(&mut r, &w, ctl, WS_MAX_MESSAGE, Some(Duration::from_secs(2))).await.expect("msg");
            assert_eq!(ev, WsEvent::Frame { opcode: ws::OP_TEXT, flags: ws::FLAG_FIN, data: Bytes::from_static(b"hello") });
            let big = vec![7u8; 70_000];
            write_all(&w, &ws_frame(ws::OP_BINARY, ws::FLAG_FIN, &big, true), None).await.expect("push");
            let ev = ws_recv(&mut r, &w, ctl, WS_MAX_MESSAGE, Some(Duration::from_secs(2))).await.expect("echo");
            assert!(matches!(ev, WsEvent::Frame { opcode: ws::OP_BINARY, ref data, .. } if data.len() == 70_000));
            // The close is echoed, then the server goes away.
            let ev = ws_recv(&mut r, &w, ctl, WS_MAX_MESSAGE, Some(Duration::from_secs(2))).await.expect("closed");
            assert_eq!(ev, WsEvent::Closed);
            srv.await.expect("server");
        });
    }

    #[test]
    fn ws_recv_timeout_keeps_buffer() {
        rt().block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = l.local_addr().expect("addr");
            let srv = tokio::spawn(async move {
                let (mut s, _) = l.accept().await.expect("accept");
                let f = ws::encode(ws::OP_TEXT, ws::FLAG_FIN, b"late");
                s.write_all(&f[..3]).await.expect("w");
                tokio::time::sleep(Duration::from_millis(150)).await;
                s.write_all(&f[3..]).await.expect("w");
                tokio::time::sleep(Duration::from_millis(100)).await;
            });
            let (mut r, w) = client(addr).await;
            let ctl = WsControl::default();
            let e = ws_recv(&mut r, &w, ctl, 1024, Some(Duration::from_millis(50)))
                .await
                .expect_err("timeout");
            assert_eq!(e.kind, FailKind::Timeout);
            let ev = ws_recv(&mut r, &w, ctl, 1024, Some(Duration::from_secs(2)))
                .await
                .expect("frame");
            assert_eq!(
                ev,
                WsEvent::Frame {
                    opcode: ws::OP_TEXT,
                    flags: ws::FLAG_FIN,
                    data: Bytes::from_static(b"late")
                }
            );
            srv.await.expect("srv");
        });
    }

    #[test]
    fn partial_push_keeps_the_lock_until_written() {
        rt().block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = l.local_addr().expect("addr");
            let (_r, w) = client(addr).await;
            let (mut s, _) = l.accept().await.expect("accept");
            let big = ws_frame(ws::OP_BINARY, ws::FLAG_FIN, &vec![3u8; 4 << 20], true);
            // The peer reads nothing yet: 4 MiB cannot all go out at once.
            let TryWrite::Rest(guard, done) = try_write(&w, &big).expect("write") else {
                panic!("expected a partial write");
            };
            assert!(matches!(try_write(&w, b"x"), Ok(TryWrite::Busy)));
            // The pong is queued first; it must still wait for the frame.
            let w2 = w.clone();
            let pong = ws_frame(ws::OP_PONG, ws::FLAG_FIN, b"p", true);
            let second = tokio::spawn(async move { write_all(&w2, &pong, None).await });
            tokio::task::yield_now().await;
            let rest = big.clone().freeze().slice(done..);
            let first = tokio::spawn(async move { write_rest(guard, &rest, None).await });
            let mut buf = BytesMut::new();
            let mut frames = Vec::new();
            while frames.len() < 2 {
                match ws::parse(&mut buf, 8 << 20) {
                    Ok(Some(f)) => frames.push(f),
                    Ok(None) => {
                        s.read_buf(&mut buf).await.expect("read");
                    }
                    Err(c) => panic!("frames interleaved: close code {c}"),
                }
            }
            assert_eq!(frames[0].payload.len(), 4 << 20);
            assert_eq!(frames[1].opcode, ws::OP_PONG);
            first.await.expect("join").expect("rest");
            second.await.expect("join").expect("pong");
        });
    }

    #[test]
    fn rsv1_round_trips_as_flag_rsv1() {
        let mut b = ws_frame(ws::OP_TEXT, ws::FLAG_FIN | ws::FLAG_RSV1, b"z", true);
        assert_eq!(b[0], 0x80 | 0x40 | ws::OP_TEXT);
        let f = ws::parse_server_frame(&mut b, 100)
            .expect("ok")
            .expect("whole");
        assert_eq!(rsv_flags(f.rsv), ws::FLAG_RSV1);
    }

    #[test]
    fn masked_frame_parses_as_client_frame() {
        let f = ws_frame(ws::OP_TEXT, ws::FLAG_FIN, b"hi there", true);
        let mut b = f.clone();
        let got = ws::parse(&mut b, 100).expect("ok").expect("whole");
        assert_eq!(&got.payload[..], b"hi there");
        let mut b = ws::encode(ws::OP_BINARY, ws::FLAG_FIN, b"srv");
        let got = ws::parse_server_frame(&mut b, 100)
            .expect("ok")
            .expect("whole");
        assert_eq!(&got.payload[..], b"srv");
    }
}
