//! The protocol side of `Swoole\Coroutine\Http2\Client`: an HTTP/2 client
//! connection on the `h2` crate over plain TCP, a Unix stream socket or
//! rustls (ALPN `h2`), and
//! Swoole's rules for turning the frames of each stream into responses.
//!
//! No PHP here. The `h2` connection runs as a loop task; one task per
//! request stream reads its head, DATA and trailers and queues them as
//! [`Ev`]ents in arrival order. `recv()`/`read()` are [`Client::take`]
//! (synchronous: it folds queued events into the stream's response, as
//! Swoole's `parse_frame` folds frames) plus [`wait`] (a future that ends
//! when an event arrives or the timeout passes), so the PHP layer holds no
//! borrow across a coroutine switch.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use h2::client::SendRequest;
use h2::{PingPong, RecvStream, SendStream};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, UnixStream};
use tokio::sync::Notify;

use crate::engine::rt::event_loop;
use crate::engine::tls::client::{self as tls_client, TlsOptions};

/// `SW_ERROR_CLIENT_NO_CONNECTION`.
pub const ERR_NO_CONNECTION: i32 = 5001;
/// `ETIMEDOUT`.
pub const ETIMEDOUT: i32 = 110;
/// `ECONNRESET`.
pub const ECONNRESET: i32 = 104;

/// The `http2_*` settings we send in our SETTINGS frame (`None`: h2's default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Settings {
    pub header_table_size: Option<u32>,
    pub initial_window_size: Option<u32>,
    pub max_concurrent_streams: Option<u32>,
    pub max_frame_size: Option<u32>,
    pub max_header_list_size: Option<u32>,
}

impl Settings {
    /// The values in effect, Swoole's defaults where unset: (name, value).
    pub fn effective(&self) -> [(&'static str, u32); 5] {
        [
            ("header_table_size", self.header_table_size.unwrap_or(4096)),
            (
                "init_window_size",
                self.initial_window_size.unwrap_or(65535),
            ),
            (
                "max_concurrent_streams",
                self.max_concurrent_streams.unwrap_or(128),
            ),
            ("max_frame_size", self.max_frame_size.unwrap_or(16384)),
            (
                "max_header_list_size",
                self.max_header_list_size.unwrap_or(4096),
            ),
        ]
    }
}

/// A failed operation: an errno or Swoole error code and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    pub code: i32,
    pub msg: String,
}

impl Fail {
    fn new(code: i32, msg: impl Into<String>) -> Self {
        Fail {
            code,
            msg: msg.into(),
        }
    }

    fn io(e: &io::Error) -> Self {
        if let Some(code) = tls_client::io_error_code(e) {
            let msg = if code == tls_client::ERR_VERIFY_FAILED {
                "SSL verify failed"
            } else {
                "SSL handshake failed"
            };
            return Fail::new(code, msg);
        }
        let code = e.raw_os_error().unwrap_or(ECONNRESET);
        Fail::new(code, crate::engine::client::http::strerror(code))
    }

    fn h2(e: &h2::Error) -> Self {
        if let Some(io) = e.get_io() {
            return Fail::io(io);
        }
        let code = e.reason().map_or(ECONNRESET, |r| u32::from(r) as i32);
        Fail::new(code, e.to_string())
    }

    fn timeout() -> Self {
        Fail::new(ETIMEDOUT, crate::engine::client::http::strerror(ETIMEDOUT))
    }
}

/// What a stream's reader task (or the connection task) reports.
#[derive(Debug)]
enum Ev {
    /// Response head, or trailers (`trailer`), with END_STREAM or not.
    Headers {
        sid: u32,
        status: u16,
        headers: Vec<(String, Vec<u8>)>,
        end: bool,
    },
    Data {
        sid: u32,
        data: Bytes,
        end: bool,
    },
    /// The body ended without a frame that said so (an empty END_STREAM).
    End {
        sid: u32,
    },
    /// RST_STREAM or a stream error: Swoole drops the stream quietly.
    Reset {
        sid: u32,
    },
    /// The server's GOAWAY, seen in the byte stream by [`Sniff`].
    GoAway(GoAway),
    /// The connection ended (EOF, error).
    Closed(Fail),
}

/// A GOAWAY frame's fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoAway {
    pub last_stream_id: u32,
    pub code: u32,
    pub debug: Vec<u8>,
}

/// The queue the tasks fill and `take` empties; `notify` wakes a `wait`.
#[derive(Default)]
struct Shared {
    events: RefCell<VecDeque<Ev>>,
    notify: Notify,
    closed: Cell<bool>,
}

impl Shared {
    fn push(&self, ev: Ev) {
        self.events.borrow_mut().push_back(ev);
        self.notify.notify_one();
    }
}

/// One part of a response, what becomes a `Swoole\Http2\Response`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Piece {
    pub stream_id: u32,
    /// 0 when this piece carries no head.
    pub status: u16,
    /// `None` when this piece carries no head (nor trailers).
    pub headers: Option<Vec<(String, Vec<u8>)>>,
    pub data: Option<Vec<u8>>,
    /// More pieces of this stream follow.
    pub pipeline: bool,
}

/// What `take` found.
#[derive(Debug)]
pub enum Taken {
    Piece(Piece),
    GoAway(GoAway),
    Closed(Fail),
}

/// A request stream: its writer (open until END_STREAM is sent) and the
/// response being put together.
struct Stream {
    send: Option<SendStream<Bytes>>,
    use_pipeline_read: bool,
    pipeline_response: bool,
    status: u16,
    headers: Option<Vec<(String, Vec<u8>)>>,
    buf: Vec<u8>,
    gzip: Option<flate2::write::GzDecoder<Vec<u8>>>,
}

/// What `send`'s future gives back: the stream id and, for a pipeline
/// request, the stream's writer.
pub type Opened = (u32, Option<SendStream<Bytes>>);

/// A request as `send` takes it.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub authority: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
    /// `$pipeline`: leave the stream open for `write()`.
    pub pipeline: bool,
    pub use_pipeline_read: bool,
}

trait Io: AsyncRead + AsyncWrite + Unpin {}
impl<T: AsyncRead + AsyncWrite + Unpin> Io for T {}

/// Reads the frame headers of what the server sends, for what h2 does
/// not tell: a GOAWAY's last stream id and debug data (queued as an event
/// the moment it is read, as Swoole's `recv()` meets it in frame order).
struct Sniff {
    inner: Box<dyn Io>,
    shared: Rc<Shared>,
    head: Vec<u8>,
    left: usize,
    goaway: Option<Vec<u8>>,
}

impl Sniff {
    fn feed(&mut self, mut b: &[u8]) {
        while !b.is_empty() {
            if self.left > 0 {
                let n = self.left.min(b.len());
                if let Some(g) = self.goaway.as_mut() {
                    g.extend_from_slice(&b[..n]);
                }
                self.left -= n;
                b = &b[n..];
                if self.left == 0 {
                    self.frame_done();
                }
                continue;
            }
            let n = (9 - self.head.len()).min(b.len());
            self.head.extend_from_slice(&b[..n]);
            b = &b[n..];
            if self.head.len() == 9 {
                let h = std::mem::take(&mut self.head);
                self.left =
                    (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2]);
                self.goaway = (h[3] == 7).then(Vec::new);
                if self.left == 0 {
                    self.frame_done();
                }
            }
        }
    }

    fn frame_done(&mut self) {
        let Some(p) = self.goaway.take() else { return };
        if p.len() < 8 {
            return;
        }
        let last_stream_id = u32::from_be_bytes([p[0], p[1], p[2], p[3]]) & 0x7fff_ffff;
        let code = u32::from_be_bytes([p[4], p[5], p[6], p[7]]);
        self.shared.push(Ev::GoAway(GoAway {
            last_stream_id,
            code,
            debug: p[8..].to_vec(),
        }));
    }
}

impl AsyncRead for Sniff {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        let me = self.get_mut();
        let before = buf.filled().len();
        let r = std::pin::Pin::new(&mut me.inner).poll_read(cx, buf);
        if let std::task::Poll::Ready(Ok(())) = r {
            let got = buf.filled()[before..].to_vec();
            me.feed(&got);
        }
        r
    }
}

impl AsyncWrite for Sniff {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<io::Result<usize>> {
        std::pin::Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// An open HTTP/2 connection.
pub struct Client {
    /// `None` after `goaway()`: h2 then ends the connection with GOAWAY
    /// once no stream is left.
    send: Option<SendRequest<Bytes>>,
    ping: Rc<RefCell<Option<PingPong>>>,
    shared: Rc<Shared>,
    streams: HashMap<u32, Stream>,
    conn_task: tokio::task::JoinHandle<()>,
    pub ssl: bool,
    pub local_settings: Settings,
    pub last_stream_id: u32,
    pub current_stream_id: u32,
    pub peer_cert: Option<String>,
    /// Connected over a Unix socket (`:authority` is then `localhost`).
    pub unix: bool,
}

/// Where a client connects: a TCP address, or a Unix stream socket's path
/// (a `unix:/path` host).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Tcp(SocketAddr),
    Unix(std::path::PathBuf),
}

/// The socket path of a `unix:` host as Swoole reads it: `unix:/p`,
/// `unix://p` and `unix:///p` all name `/p` (the slashes after `unix:`
/// fold into one). `None` for any other host.
pub fn unix_path(host: &str) -> Option<std::path::PathBuf> {
    let rest = host.strip_prefix("unix:/")?;
    let rest = rest.trim_start_matches('/');
    Some(std::path::PathBuf::from(format!("/{rest}")))
}

/// The `:authority` sent on a Unix-socket connection, whose host is a path
/// (not a valid authority).
const UNIX_AUTHORITY: &str = "localhost";

/// Runs `fut` within `t` (`None`: no limit).
async fn within<T>(
    t: Option<Duration>,
    fut: impl Future<Output = Result<T, Fail>>,
) -> Result<T, Fail> {
    match t {
        Some(t) => tokio::time::timeout(t, fut)
            .await
            .unwrap_or_else(|_| Err(Fail::timeout())),
        None => fut.await,
    }
}

/// Connects to `addr`, runs TLS (ALPN `h2`) when `tls` is given (with the
/// name to verify and send as SNI) and the HTTP/2 handshake, within
/// `timeout`; the connection then runs as a loop task.
pub async fn connect(
    target: Target,
    timeout: Option<Duration>,
    tls: Option<(TlsOptions, String)>,
    settings: Settings,
) -> Result<Client, Fail> {
    within(timeout, async move {
        let tcp = match target {
            Target::Tcp(addr) => {
                let tcp = TcpStream::connect(addr).await.map_err(|e| Fail::io(&e))?;
                let _ = tcp.set_nodelay(true);
                tcp
            }
            Target::Unix(path) if tls.is_none() => {
                let s = UnixStream::connect(path).await.map_err(|e| Fail::io(&e))?;
                return handshake(Box::new(s), None, false, true, settings).await;
            }
            Target::Unix(path) => {
                // TLS over a Unix socket: rustls over the Unix stream.
                let s = UnixStream::connect(path).await.map_err(|e| Fail::io(&e))?;
                let Some((mut opts, host)) = tls else {
                    return Err(Fail::new(libc::EINVAL, "no TLS options"));
                };
                opts.alpn = vec![b"h2".to_vec()];
                let cfg = tls_client::client_config(&opts)
                    .map_err(|m| Fail::new(tls_client::ERR_CREATE_CONTEXT_FAILED, m))?;
                let name = tls_client::server_name(&opts, &host);
                let s = tokio_rustls::TlsConnector::from(cfg)
                    .connect(name, s)
                    .await
                    .map_err(|e| Fail::io(&e))?;
                let cert = tls_client::peer_pem(s.get_ref().1);
                return handshake(Box::new(s), cert, true, true, settings).await;
            }
        };
        let ssl = tls.is_some();
        let (io, peer_cert): (Box<dyn Io>, Option<String>) = match tls {
            None => (Box::new(tcp), None),
            Some((mut opts, host)) => {
                opts.alpn = vec![b"h2".to_vec()];
                let cfg = tls_client::client_config(&opts)
                    .map_err(|m| Fail::new(tls_client::ERR_CREATE_CONTEXT_FAILED, m))?;
                let name = tls_client::server_name(&opts, &host);
                let s = tokio_rustls::TlsConnector::from(cfg)
                    .connect(name, tcp)
                    .await
                    .map_err(|e| Fail::io(&e))?;
                let cert = tls_client::peer_pem(s.get_ref().1);
                (Box::new(s), cert)
            }
        };
        handshake(io, peer_cert, ssl, false, settings).await
    })
    .await
}

/// The HTTP/2 handshake over a connected (and, with TLS, secured) stream;
/// the connection then runs as a loop task.
async fn handshake(
    io: Box<dyn Io>,
    peer_cert: Option<String>,
    ssl: bool,
    unix: bool,
    settings: Settings,
) -> Result<Client, Fail> {
    let mut b = h2::client::Builder::new();
    b.enable_push(false);
    if let Some(v) = settings.header_table_size {
        b.header_table_size(v);
    }
    if let Some(v) = settings.initial_window_size {
        b.initial_window_size(v);
    }
    if let Some(v) = settings.max_concurrent_streams {
        b.max_concurrent_streams(v);
    }
    if let Some(v) = settings.max_frame_size {
        b.max_frame_size(v.clamp(16_384, 16_777_215));
    }
    if let Some(v) = settings.max_header_list_size {
        b.max_header_list_size(v);
    }
    let shared = Rc::new(Shared::default());
    let io = Sniff {
        inner: io,
        shared: Rc::clone(&shared),
        head: Vec::new(),
        left: 0,
        goaway: None,
    };
    let (send, mut conn) = b
        .handshake::<_, Bytes>(io)
        .await
        .map_err(|e| Fail::h2(&e))?;
    let ping = conn.ping_pong();
    let sh = Rc::clone(&shared);
    // Untracked: an idle connection does not keep a script's loop alive
    // (Swoole waits for coroutines, not sockets).
    let conn_task = event_loop::spawn_untracked(async move {
        let r = conn.await;
        sh.closed.set(true);
        sh.push(Ev::Closed(match r {
            Ok(()) => Fail::new(0, ""),
            Err(e) => Fail::h2(&e),
        }));
    });
    Ok(Client {
        send: Some(send),
        ping: Rc::new(RefCell::new(ping)),
        shared,
        streams: HashMap::new(),
        conn_task,
        ssl,
        local_settings: settings,
        last_stream_id: 0,
        current_stream_id: 1,
        unix,
        peer_cert,
    })
}

/// Ends when an event is queued or `timeout` passes; false on timeout.
pub fn wait(c: &Client, timeout: Option<Duration>) -> impl Future<Output = bool> + 'static {
    let sh = Rc::clone(&c.shared);
    async move {
        let fut = async {
            loop {
                if !sh.events.borrow().is_empty() {
                    return;
                }
                sh.notify.notified().await;
            }
        };
        match timeout {
            Some(t) => tokio::time::timeout(t, fut).await.is_ok(),
            None => {
                fut.await;
                true
            }
        }
    }
}

/// Reads one response stream and queues what arrives.
async fn read_stream(sh: Rc<Shared>, sid: u32, resp: h2::client::ResponseFuture) {
    let resp = match resp.await {
        Ok(r) => r,
        Err(_) => return sh.push(Ev::Reset { sid }),
    };
    let (parts, mut body): (_, RecvStream) = resp.into_parts();
    let headers = header_list(&parts.headers);
    let end = body.is_end_stream();
    sh.push(Ev::Headers {
        sid,
        status: parts.status.as_u16(),
        headers,
        end,
    });
    if end {
        return;
    }
    while let Some(chunk) = body.data().await {
        match chunk {
            Ok(data) => {
                let _ = body.flow_control().release_capacity(data.len());
                let end = body.is_end_stream();
                sh.push(Ev::Data { sid, data, end });
                if end {
                    return;
                }
            }
            Err(_) => return sh.push(Ev::Reset { sid }),
        }
    }
    match body.trailers().await {
        Ok(Some(t)) => sh.push(Ev::Headers {
            sid,
            status: 0,
            headers: header_list(&t),
            end: true,
        }),
        Ok(None) => sh.push(Ev::End { sid }),
        Err(_) => sh.push(Ev::Reset { sid }),
    }
}

fn header_list(h: &http::HeaderMap) -> Vec<(String, Vec<u8>)> {
    h.iter()
        .map(|(k, v)| (k.as_str().to_string(), v.as_bytes().to_vec()))
        .collect()
}

/// The request `send` puts on the wire, and whether its stream ends there.
fn build(req: &Request, ssl: bool) -> Result<(http::Request<()>, bool), Fail> {
    let bad = |m: &str| Fail::new(libc::EINVAL, m.to_string());
    let method = if req.method.is_empty() {
        "GET"
    } else {
        &req.method
    };
    let path = if req.path.is_empty() { "/" } else { &req.path };
    let uri = http::Uri::builder()
        .scheme(if ssl { "https" } else { "http" })
        .authority(req.authority.as_str())
        .path_and_query(path)
        .build()
        .map_err(|e| bad(&format!("invalid request path or host: {e}")))?;
    let mut b = http::Request::builder()
        .method(
            http::Method::from_bytes(method.as_bytes())
                .map_err(|_| bad("invalid request method"))?,
        )
        .uri(uri);
    for (k, v) in &req.headers {
        let name = http::HeaderName::from_bytes(k.to_ascii_lowercase().as_bytes())
            .map_err(|_| bad(&format!("invalid header name: {k}")))?;
        // Connection-specific headers are forbidden in HTTP/2 (RFC 9113
        // 8.2.2); h2 refuses the request with them, Swoole sends them.
        if matches!(
            name.as_str(),
            "connection" | "keep-alive" | "proxy-connection" | "transfer-encoding" | "upgrade"
        ) {
            continue;
        }
        let value =
            http::HeaderValue::from_bytes(v).map_err(|_| bad(&format!("invalid header: {k}")))?;
        b = b.header(name, value);
    }
    let r = b.body(()).map_err(|e| bad(&e.to_string()))?;
    Ok((r, req.body.is_empty() && !req.pipeline))
}

impl Client {
    /// Whether the connection still runs.
    pub fn alive(&self) -> bool {
        !self.shared.closed.get()
    }

    pub fn active_streams(&self) -> usize {
        self.streams.len()
    }

    pub fn stream_exists(&self, sid: u32) -> bool {
        self.streams.contains_key(&sid)
    }

    /// The part of `send` that waits (for a free stream slot): a future
    /// that opens the stream, sends the head and the body and starts the
    /// stream's reader. Then hand its output to [`Client::opened`].
    pub fn send(
        &self,
        req: Request,
        timeout: Option<Duration>,
    ) -> Result<impl Future<Output = Result<Opened, Fail>> + 'static, Fail> {
        let Some(send) = self.send.clone().filter(|_| self.alive()) else {
            return Err(Fail::new(ERR_NO_CONNECTION, "Client no connection"));
        };
        let mut req = req;
        if self.unix && req.authority.contains("unix:") {
            req.authority = UNIX_AUTHORITY.to_string();
        }
        let (head, end) = build(&req, self.ssl)?;
        let sh = Rc::clone(&self.shared);
        Ok(within(timeout, async move {
            let mut send = send.ready().await.map_err(|e| Fail::h2(&e))?;
            let (resp, mut stream) = send.send_request(head, end).map_err(|e| Fail::h2(&e))?;
            let sid = u32::from(stream.stream_id());
            event_loop::spawn_untracked(read_stream(sh, sid, resp));
            if !req.body.is_empty() {
                stream
                    .send_data(Bytes::from(req.body), !req.pipeline)
                    .map_err(|e| Fail::h2(&e))?;
            }
            Ok((sid, (req.pipeline).then_some(stream)))
        }))
    }

    /// Records a stream `send` opened.
    pub fn opened(&mut self, sid: u32, send: Option<SendStream<Bytes>>, use_pipeline_read: bool) {
        self.current_stream_id = sid + 2;
        self.streams.insert(
            sid,
            Stream {
                send,
                use_pipeline_read,
                pipeline_response: false,
                status: 0,
                headers: None,
                buf: Vec::new(),
                gzip: None,
            },
        );
    }

    /// `write($stream_id, $data, $end_stream)` on a pipeline stream.
    pub fn write(&mut self, sid: u32, data: Vec<u8>, end: bool) -> Result<(), Fail> {
        let not_found = || {
            Fail::new(
                libc::EINVAL,
                format!("unable to found active pipeline stream#{sid}"),
            )
        };
        let st = self.streams.get_mut(&sid).ok_or_else(not_found)?;
        let send = st.send.as_mut().ok_or_else(not_found)?;
        send.send_data(Bytes::from(data), end)
            .map_err(|e| Fail::h2(&e))?;
        if end {
            st.send = None;
        }
        Ok(())
    }

    /// Sends a PING (its PONG is taken by h2). False when one is pending.
    pub fn ping(&self) -> bool {
        let Some(mut pp) = self.ping.borrow_mut().take() else {
            return self.alive();
        };
        let slot = Rc::clone(&self.ping);
        event_loop::spawn_untracked(async move {
            if pp.ping(h2::Ping::opaque()).await.is_ok() {
                *slot.borrow_mut() = Some(pp);
            }
        });
        true
    }

    /// No more requests: h2 sends GOAWAY (NO_ERROR) and closes once the
    /// open streams are done.
    pub fn goaway(&mut self) -> bool {
        self.send.take().is_some() && self.alive()
    }

    /// Folds queued events into responses; the next complete one (or, in
    /// pipeline mode, the next piece), or the connection's end. `None`:
    /// nothing ready yet.
    pub fn take(&mut self, pipeline_read: bool) -> Option<Taken> {
        loop {
            let ev = self.shared.events.borrow_mut().pop_front()?;
            let (sid, end, data, headers, status) = match ev {
                Ev::Closed(f) => {
                    self.streams.clear();
                    return Some(Taken::Closed(f));
                }
                Ev::GoAway(g) => {
                    // Swoole closes the connection on GOAWAY.
                    self.close();
                    return Some(Taken::GoAway(g));
                }
                Ev::Reset { sid } => {
                    self.streams.remove(&sid);
                    continue;
                }
                Ev::End { sid } => (sid, true, None, None, 0),
                Ev::Data { sid, data, end } => (sid, end, Some(data), None, 0),
                Ev::Headers {
                    sid,
                    status,
                    headers,
                    end,
                } => (sid, end, None, Some(headers), status),
            };
            self.last_stream_id = self.last_stream_id.max(sid);
            let Some(st) = self.streams.get_mut(&sid) else {
                continue;
            };
            if let Some(h) = headers {
                if status != 0 {
                    st.status = status;
                }
                let gz = h.iter().any(|(k, v)| {
                    k == "content-encoding" && v.len() >= 4 && v[..4].eq_ignore_ascii_case(b"gzip")
                });
                if gz && st.gzip.is_none() {
                    st.gzip = Some(flate2::write::GzDecoder::new(Vec::new()));
                }
                st.headers.get_or_insert_with(Vec::new).extend(h);
            }
            if let Some(d) = data {
                if !end {
                    st.pipeline_response = true;
                }
                match st.gzip.as_mut() {
                    Some(g) => {
                        if g.write_all(&d).and_then(|_| g.flush()).is_err() {
                            self.streams.remove(&sid);
                            return Some(Taken::Closed(Fail::new(
                                libc::EINVAL,
                                "decompress failed",
                            )));
                        }
                        st.buf.append(g.get_mut());
                    }
                    None => st.buf.extend_from_slice(&d),
                }
            }
            let piece_now = (pipeline_read || st.use_pipeline_read) && st.pipeline_response;
            if !(end || piece_now) {
                continue;
            }
            let piece = Piece {
                stream_id: sid,
                status: std::mem::take(&mut st.status),
                headers: st.headers.take(),
                data: (!st.buf.is_empty()).then(|| std::mem::take(&mut st.buf)),
                pipeline: !end,
            };
            if end {
                self.streams.remove(&sid);
            }
            return Some(Taken::Piece(piece));
        }
    }

    /// Ends the connection now (the socket closes as the task drops it).
    pub fn close(&mut self) {
        self.send = None;
        self.streams.clear();
        self.conn_task.abort();
        self.shared.closed.set(true);
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.conn_task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client_with(events: Vec<Ev>, streams: &[(u32, bool)]) -> Client {
        // A handle of a task never run: `Client` only aborts it.
        let local = tokio::task::LocalSet::new();
        let task = local.spawn_local(async {});
        let shared = Rc::new(Shared::default());
        for e in events {
            shared.push(e);
        }
        let mut c = Client {
            send: None,
            ping: Rc::new(RefCell::new(None)),
            shared,
            streams: HashMap::new(),
            conn_task: task,
            ssl: false,
            local_settings: Settings::default(),
            last_stream_id: 0,
            current_stream_id: 0,
            peer_cert: None,
            unix: false,
        };
        for &(sid, pr) in streams {
            c.opened(sid, None, pr);
        }
        c
    }

    fn head(sid: u32, end: bool) -> Ev {
        Ev::Headers {
            sid,
            status: 200,
            headers: vec![("x-a".into(), b"1".to_vec())],
            end,
        }
    }

    fn data(sid: u32, d: &'static [u8], end: bool) -> Ev {
        Ev::Data {
            sid,
            data: Bytes::from_static(d),
            end,
        }
    }

    #[test]
    fn whole_response_by_default() {
        let mut c = client_with(
            vec![head(1, false), data(1, b"ab", false), data(1, b"cd", true)],
            &[(1, false)],
        );
        let Some(Taken::Piece(p)) = c.take(false) else {
            panic!("no piece")
        };
        assert_eq!(p.status, 200);
        assert_eq!(p.data.as_deref(), Some(&b"abcd"[..]));
        assert!(!p.pipeline);
        assert!(!c.stream_exists(1));
        assert!(c.take(false).is_none());
    }

    #[test]
    fn pieces_in_pipeline_read() {
        let mut c = client_with(
            vec![head(1, false), data(1, b"ab", false), data(1, b"cd", true)],
            &[(1, false)],
        );
        let Some(Taken::Piece(p)) = c.take(true) else {
            panic!("no piece")
        };
        assert_eq!((p.status, p.pipeline), (200, true));
        assert_eq!(p.data.as_deref(), Some(&b"ab"[..]));
        let Some(Taken::Piece(p)) = c.take(true) else {
            panic!("no piece")
        };
        assert_eq!(
            (p.status, p.pipeline, p.headers.is_none()),
            (0, false, true)
        );
        assert_eq!(p.data.as_deref(), Some(&b"cd"[..]));
    }

    #[test]
    fn reset_streams_are_dropped_quietly_and_trailers_join_headers() {
        let mut c = client_with(
            vec![
                head(1, false),
                Ev::Reset { sid: 1 },
                head(3, false),
                data(3, b"x", false),
                Ev::Headers {
                    sid: 3,
                    status: 0,
                    headers: vec![("grpc-status".into(), b"0".to_vec())],
                    end: true,
                },
            ],
            &[(1, false), (3, false)],
        );
        let Some(Taken::Piece(p)) = c.take(false) else {
            panic!("no piece")
        };
        assert_eq!(p.stream_id, 3);
        let h = p.headers.unwrap_or_default();
        assert_eq!(h.len(), 2);
        assert_eq!(h[1].0, "grpc-status");
        assert_eq!(c.last_stream_id, 3);
    }

    #[test]
    fn gzip_bodies_are_inflated() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let _ = enc.write_all(b"hello hello hello");
        let gz: &'static [u8] = Box::leak(enc.finish().unwrap_or_default().into_boxed_slice());
        let mut c = client_with(
            vec![
                Ev::Headers {
                    sid: 1,
                    status: 200,
                    headers: vec![("content-encoding".into(), b"gzip".to_vec())],
                    end: false,
                },
                data(1, gz, true),
            ],
            &[(1, false)],
        );
        let Some(Taken::Piece(p)) = c.take(false) else {
            panic!("no piece")
        };
        assert_eq!(p.data.as_deref(), Some(&b"hello hello hello"[..]));
    }

    #[test]
    fn closed_connection_is_reported() {
        let mut c = client_with(vec![Ev::Closed(Fail::new(0, ""))], &[(1, false)]);
        assert!(matches!(c.take(false), Some(Taken::Closed(f)) if f.code == 0));
        assert_eq!(c.active_streams(), 0);
    }

    #[test]
    fn unix_hosts_fold_their_slashes() {
        for h in [
            "unix:/tmp/a.sock",
            "unix://tmp/a.sock",
            "unix:///tmp/a.sock",
        ] {
            assert_eq!(unix_path(h), Some("/tmp/a.sock".into()), "{h}");
        }
        assert_eq!(unix_path("127.0.0.1"), None);
        assert_eq!(unix_path("unix:a"), None);
    }
}
