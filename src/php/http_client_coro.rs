//! `Swoole\Coroutine\Http\Client` (alias `Co\Http\Client`): the coroutine
//! HTTP and WebSocket client, and `Swoole\Coroutine\Http\Client\Exception`.
//!
//! The protocol lives in `engine::client::http`; this file turns the
//! client's PHP properties into a request and the response back into
//! properties. Every network wait runs as a task on the event loop through
//! `coro::io::run`, which suspends only the calling coroutine. A socket half
//! is moved into that task and comes back with the result, so nothing is
//! borrowed across the suspension. Like Swoole, one coroutine at a time may
//! read (and one write) a client: a second one gets `Swoole\Error`.

use std::cell::RefCell;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::Duration;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::class::RegisteredClass;
use ext_php_rs::convert::{FromZval, IntoZval};
use ext_php_rs::error::php_error;
use ext_php_rs::exception::{PhpException, PhpResult};
use ext_php_rs::flags::DataType;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::ClassEntry;

use super::errors::{set_last_error, SWOOLE_ERROR_CO_HAS_BEEN_BOUND, SWOOLE_ERROR_INVALID_PARAMS};
use super::exception::{error_ce, exception_ce};
use super::http_request::bytes_zval;
use super::socket_coro::Socket;
use super::websocket_frame::{CloseFrame, Frame};
use super::zval::false_zval;
use super::zval::string_bytes as zval_bytes;
use super::CeRef;
use crate::coro::{self, Cid};
use crate::engine::client::http::{
    self as hc, Body, Fail, FailKind, Part, Reader, RequestSpec, Response, ResponseOpts, Writer,
    WsControl, WsEvent,
};
use crate::engine::net::socket::NetSocket;
use crate::engine::tls::client::TlsOptions;
use crate::engine::ws;

extern "C" {
    // ZEND_API const char *zend_get_executed_filename(void);
    fn zend_get_executed_filename() -> *const std::ffi::c_char;
    // ZEND_API uint32_t zend_get_executed_lineno(void);
    fn zend_get_executed_lineno() -> u32;
}

pub const ESTATUS_CONNECT_FAILED: i64 = -1;
pub const ESTATUS_REQUEST_TIMEOUT: i64 = -2;
pub const ESTATUS_SERVER_RESET: i64 = -3;
pub const ESTATUS_SEND_FAILED: i64 = -4;
/// `SW_ERROR_CLIENT_NO_CONNECTION`.
pub const ERR_CLIENT_NO_CONNECTION: i64 = 5001;
/// `SW_ERROR_WEBSOCKET_BAD_OPCODE`.
const ERR_WS_BAD_OPCODE: i64 = 8502;

static EXCEPTION: OnceLock<CeRef> = OnceLock::new();

fn client_exception(msg: impl Into<String>, code: i32) -> PhpException {
    let ce = EXCEPTION.get().map_or_else(exception_ce, |c| c.0);
    PhpException::new(msg.into(), code, ce)
}

/// Where the PHP code that called us is, kept as the executor gives it:
/// formatted ("file:line") only if another coroutine clashes with the wait
/// (`Client::check`), not on every `recv()` (that formatting was ~1,200
/// instructions per WebSocket message).
#[derive(Clone, Copy)]
struct Location {
    file: *const std::ffi::c_char,
    line: u32,
}

impl Location {
    fn here() -> Self {
        // SAFETY: called from a PHP method on the PHP thread; both functions
        // read the executor's current frame and return a static empty
        // string / 0 when there is none.
        unsafe {
            Location {
                file: zend_get_executed_filename(),
                line: zend_get_executed_lineno(),
            }
        }
    }

    fn text(self) -> String {
        let file = if self.file.is_null() {
            String::new()
        } else {
            // SAFETY: the name of the file of a frame that is still running:
            // a location is read only while its coroutine waits inside that
            // call (`bind` .. `unbind` around the wait), so the op array
            // that owns the name is alive.
            unsafe { std::ffi::CStr::from_ptr(self.file) }
                .to_string_lossy()
                .into_owned()
        };
        format!("{file}:{}", self.line)
    }
}

fn secs(f: f64) -> Option<Duration> {
    (f > 0.0 && f.is_finite()).then(|| Duration::from_secs_f64(f))
}

/// A property of any type: what the getter returns and the setter takes.
pub struct Mixed(pub Zval);

impl FromZval<'_> for Mixed {
    const TYPE: DataType = DataType::Mixed;

    fn from_zval(zval: &Zval) -> Option<Self> {
        Some(Mixed(zval.shallow_clone()))
    }
}

impl IntoZval for Mixed {
    const TYPE: DataType = DataType::Mixed;
    const NULLABLE: bool = true;

    fn set_zval(self, zv: &mut Zval, persistent: bool) -> ext_php_rs::error::Result<()> {
        self.0.set_zval(zv, persistent)
    }
}

fn null() -> Zval {
    Zval::new()
}

fn string_zval(s: &str) -> Zval {
    bytes_zval(s.as_bytes())
}

fn zval_f64(z: &Zval) -> f64 {
    z.double()
        .or_else(|| z.long().map(|l| l as f64))
        .or_else(|| z.str().and_then(|s| s.trim().parse().ok()))
        .unwrap_or(0.0)
}

/// PHP's `urlencode` for cookie values (as Swoole encodes them).
fn url_encode(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len());
    for &b in v {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.') {
            out.push(b);
        } else if b == b' ' {
            out.push(b'+');
        } else {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        }
    }
    out
}

fn mime_of(path: &str) -> &'static str {
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "txt" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "js" => "application/javascript",
        "json" => "application/json",
        "xml" => "application/xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        _ => "application/octet-stream",
    }
}

/// The settings the client acts on (`set()`).
#[derive(Clone, Copy)]
struct Opts {
    /// 0 = not set; negative = no limit.
    connect_timeout: f64,
    timeout: f64,
    read_timeout: f64,
    write_timeout: f64,
    keep_alive: bool,
    lowercase_header: bool,
    http_compression: bool,
    body_decompression: bool,
    defer: bool,
    /// `max_retries`: more attempts after a failed connect or a 502/503.
    max_retries: u32,
    /// `websocket_compression`: offer permessage-deflate on upgrade.
    compression: bool,
    ctl: WsControl,
    max_message: usize,
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            connect_timeout: 0.0,
            timeout: 0.0,
            read_timeout: 0.0,
            write_timeout: 0.0,
            keep_alive: true,
            lowercase_header: true,
            http_compression: true,
            body_decompression: true,
            defer: false,
            max_retries: 0,
            compression: false,
            // Client frames are always masked (RFC 6455 5.3).
            ctl: WsControl {
                mask: true,
                ..Default::default()
            },
            max_message: hc::WS_MAX_MESSAGE,
        }
    }
}

/// Swoole's default connect timeout and read/write timeout, in seconds.
const DEFAULT_CONNECT: f64 = 10.0;
const DEFAULT_RW: f64 = 60.0;

impl Opts {
    fn connect(&self) -> Option<Duration> {
        if self.connect_timeout != 0.0 {
            return secs(self.connect_timeout);
        }
        if self.timeout > 0.0 {
            return secs(self.timeout.min(DEFAULT_CONNECT));
        }
        secs(DEFAULT_CONNECT)
    }

    /// The response/recv timeout: `$timeout` when given (> 0), else the
    /// settings, else Swoole's default.
    fn read(&self, given: f64) -> Option<Duration> {
        for t in [given, self.timeout, self.read_timeout] {
            if t > 0.0 {
                return secs(t);
            }
            if t < 0.0 {
                return None;
            }
        }
        secs(DEFAULT_RW)
    }

    fn write(&self) -> Option<Duration> {
        for t in [self.write_timeout, self.timeout] {
            if t > 0.0 {
                return secs(t);
            }
            if t < 0.0 {
                return None;
            }
        }
        secs(DEFAULT_RW)
    }
}

/// An open connection. `reader` is `None` while an operation holds it.
struct Conn {
    fd: i32,
    reader: Option<Reader>,
    writer: Writer,
    websocket: bool,
    /// permessage-deflate was negotiated on the upgrade.
    deflate: bool,
    local: Option<SocketAddr>,
    peer: Option<SocketAddr>,
    /// The server's certificate in PEM (an ssl client).
    peer_cert: Option<String>,
    /// The `socket` property once read: a `Coroutine\Socket` over a copy
    /// of the descriptor, and its engine socket (closing it ends this
    /// connection too).
    socket: Option<(Zval, Rc<NetSocket>)>,
}

impl Conn {
    /// The `socket` object was closed from PHP (`$cli->socket->close()`).
    fn socket_closed(&self) -> bool {
        self.socket.as_ref().is_some_and(|(_, s)| s.is_closed())
    }
}

impl Drop for Conn {
    /// The copy of the descriptor behind `socket` goes with the connection
    /// (else it would keep it open).
    fn drop(&mut self) {
        if let Some((_, s)) = &self.socket {
            s.close();
        }
    }
}

/// A request that was sent with `defer` and whose response `recv()` reads.
struct Pending {
    opts: ResponseOpts,
    ws_key: Option<String>,
}

/// What a coroutine bound to the socket is doing, for the misuse error.
struct Bound {
    cid: Cid,
    fd: i32,
    at: Location,
}

struct Inner {
    opts: Opts,
    /// The `ssl_*` settings (used when the client was made with `$ssl`).
    tls: TlsOptions,
    conn: Option<Conn>,
    /// Bumped by `close()`: an operation that started on an older
    /// connection drops what it gets back.
    gen: u64,
    reading: Option<Bound>,
    writing: Option<Bound>,
    header_out: Option<Vec<u8>>,
    basic_auth: Option<String>,
    pending: Option<Pending>,
    // Public properties.
    err_code: i64,
    err_msg: String,
    status_code: i64,
    setting: Zval,
    request_method: Zval,
    request_headers: Zval,
    request_body: Zval,
    upload_files: Zval,
    download_file: Zval,
    download_offset: i64,
    headers: Zval,
    set_cookie_headers: Zval,
    cookies: Zval,
    body: Zval,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Read,
    Write,
}

#[php_class]
#[php(name = "Swoole\\Coroutine\\Http\\Client")]
pub struct Client {
    host: String,
    port: i64,
    ssl: bool,
    inner: RefCell<Inner>,
}

impl Client {
    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        f(&mut self.inner.borrow_mut())
    }

    /// Throws Swoole's misuse error when another coroutine is bound to the
    /// socket for `dir` (with where that coroutine waits).
    fn check(&self, cid: Cid, dir: Dir) -> PhpResult<()> {
        let clash = self.with(|s| {
            let slot = match dir {
                Dir::Read => &s.reading,
                Dir::Write => &s.writing,
            };
            slot.as_ref()
                .filter(|b| b.cid != cid)
                .map(|b| (b.cid, b.fd, b.at))
        });
        let Some((other, fd, at)) = clash else {
            return Ok(());
        };
        set_last_error(SWOOLE_ERROR_CO_HAS_BEEN_BOUND);
        let what = match dir {
            Dir::Read => "reading",
            Dir::Write => "writing",
        };
        Err(PhpException::new(
            format!(
                "Socket#{fd} has already been bound to another coroutine#{other}, {what} of the same socket in coroutine#{cid} at the same time is not allowed (coroutine#{other} is waiting in {})",
                at.text()
            ),
            SWOOLE_ERROR_CO_HAS_BEEN_BOUND as i32,
            error_ce(),
        ))
    }

    /// Binds the socket to `cid` for `dir` (after `check`).
    fn bind(&self, cid: Cid, dir: Dir, fd: i32) {
        let at = Location::here();
        self.with(|s| {
            let b = Some(Bound { cid, fd, at });
            match dir {
                Dir::Read => s.reading = b,
                Dir::Write => s.writing = b,
            }
        });
    }

    fn unbind(&self, dir: Dir) {
        self.with(|s| match dir {
            Dir::Read => s.reading = None,
            Dir::Write => s.writing = None,
        });
    }

    fn set_error(&self, code: i64, msg: &str, status: i64) {
        self.with(|s| {
            s.err_code = code;
            s.err_msg = msg.to_string();
            s.status_code = status;
        });
    }

    /// A socket that could not be made: its errno, as a connect failure.
    fn socket_failed(&self, e: &std::io::Error) {
        let code = e.raw_os_error().unwrap_or(libc::EIO);
        self.set_error(code as i64, &hc::strerror(code), ESTATUS_CONNECT_FAILED);
    }

    fn set_fail(&self, f: &Fail) {
        let status = match f.kind {
            FailKind::Connect => ESTATUS_CONNECT_FAILED,
            FailKind::Timeout => ESTATUS_REQUEST_TIMEOUT,
            FailKind::Reset => ESTATUS_SERVER_RESET,
            FailKind::Send => ESTATUS_SEND_FAILED,
        };
        self.set_error(f.code as i64, &f.msg, status);
    }

    fn no_connection(&self) {
        self.with(|s| {
            s.err_code = ERR_CLIENT_NO_CONNECTION;
            s.err_msg = "Client no connection".into();
        });
    }

    /// Drops the connection (a reader held by a running operation is woken
    /// by the shutdown and dropped when it comes back).
    fn drop_conn(&self) -> bool {
        let conn = self.with(|s| {
            s.gen += 1;
            s.pending = None;
            s.conn.take()
        });
        match conn {
            Some(c) => {
                if c.reader.is_none() {
                    hc::shutdown_fd(c.fd);
                }
                drop(c);
                true
            }
            None => false,
        }
    }

    /// True while there is a connection; one whose `socket` object was
    /// closed from PHP is dropped here (Swoole's client then has none).
    fn is_connected(&self) -> bool {
        match self.with(|s| s.conn.as_ref().map(Conn::socket_closed)) {
            None => false,
            Some(false) => true,
            Some(true) => {
                self.drop_conn();
                false
            }
        }
    }

    /// The `socket` property: the connection as a `Coroutine\Socket`
    /// (made on first read, over a copy of the descriptor), or null.
    fn socket_zval(&self) -> Zval {
        if !self.is_connected() {
            return null();
        }
        let (fd, have) = self.with(|s| {
            s.conn.as_ref().map_or((-1, None), |c| {
                (c.fd, c.socket.as_ref().map(|(z, _)| z.shallow_clone()))
            })
        });
        if let Some(z) = have {
            return z;
        }
        let Ok(net) = NetSocket::import_fd(fd) else {
            return null();
        };
        let sock = Socket::from_net(net);
        sock.imported.set(true);
        let rc = Rc::clone(&sock.core.sock);
        let z = sock.into_zval();
        let out = z.shallow_clone();
        self.with(|s| {
            if let Some(c) = s.conn.as_mut() {
                c.socket = Some((z, rc));
            }
        });
        out
    }

    fn is_websocket(&self) -> bool {
        self.with(|s| s.conn.as_ref().is_some_and(|c| c.websocket))
    }

    /// `requestHeaders` as (name, value) pairs.
    fn header_pairs(&self) -> Vec<(String, Vec<u8>)> {
        let z = self.with(|s| s.request_headers.shallow_clone());
        let mut out = Vec::new();
        if let Some(ht) = z.array() {
            for (k, v) in ht.iter() {
                let key = k.to_string();
                if key.parse::<i64>().is_ok() || v.is_null() {
                    continue;
                }
                if let Some(b) = zval_bytes(v) {
                    out.push((key, b));
                }
            }
        }
        out
    }

    fn cookie_pairs(&self) -> Vec<(String, Vec<u8>)> {
        let z = self.with(|s| s.cookies.shallow_clone());
        let mut out = Vec::new();
        if let Some(ht) = z.array() {
            for (k, v) in ht.iter() {
                let key = k.to_string();
                if key.parse::<i64>().is_ok() {
                    continue;
                }
                match zval_bytes(v) {
                    Some(b) if !b.is_empty() => out.push((key, url_encode(&b))),
                    _ => {}
                }
            }
        }
        out
    }

    /// The request body from `requestBody` and `uploadFiles`. Calls PHP's
    /// `http_build_query` for an array; nothing is borrowed meanwhile.
    fn body(&self) -> Result<Body, String> {
        let (data, files) = self.with(|s| {
            (
                s.request_body.shallow_clone(),
                s.upload_files.shallow_clone(),
            )
        });
        let file_list: Vec<Part> = match files.array() {
            Some(ht) if !ht.is_empty() => {
                let mut parts = Vec::new();
                for (_, f) in ht.iter() {
                    let Some(f) = f.array() else {
                        return Err("uploadFiles must be an array of arrays".into());
                    };
                    let s = |k: &str| {
                        f.get(k)
                            .and_then(zval_bytes)
                            .map(|b| String::from_utf8_lossy(&b).into_owned())
                    };
                    let (Some(name), Some(filename), Some(mime)) =
                        (s("name"), s("filename"), s("type"))
                    else {
                        continue;
                    };
                    let size = f.get("size").and_then(Zval::long).unwrap_or(0).max(0) as u64;
                    if let Some(content) = f.get("content").and_then(zval_bytes) {
                        parts.push(Part::Data {
                            name,
                            filename,
                            mime,
                            content,
                        });
                    } else if let Some(path) = s("path") {
                        let offset =
                            f.get("offset").and_then(Zval::long).unwrap_or(0).max(0) as u64;
                        parts.push(Part::File {
                            name,
                            filename,
                            mime,
                            path,
                            offset,
                            size,
                        });
                    }
                }
                parts
            }
            _ => Vec::new(),
        };
        if !file_list.is_empty() {
            let mut parts = Vec::new();
            if let Some(ht) = data.array() {
                for (k, v) in ht.iter() {
                    let key = k.to_string();
                    if key.parse::<i64>().is_ok() || v.is_null() {
                        continue;
                    }
                    if let Some(b) = zval_bytes(v) {
                        parts.push(Part::Field {
                            name: key,
                            value: b,
                        });
                    }
                }
            }
            parts.extend(file_list);
            return Ok(Body::Multipart(parts));
        }
        if data.is_null() {
            return Ok(Body::None);
        }
        if data.array().is_some() {
            let q = ext_php_rs::types::ZendCallable::try_from_name("http_build_query")
                .and_then(|f| f.try_call(vec![&data]))
                .map_err(|e| format!("http_build_query failed: {e}"))?;
            let bytes = q
                .zend_str()
                .map(|s| s.as_bytes().to_vec())
                .unwrap_or_default();
            return Ok(Body::Raw {
                data: bytes,
                content_type: Some("application/x-www-form-urlencoded"),
            });
        }
        match zval_bytes(&data) {
            Some(b) => Ok(Body::Raw {
                data: b,
                content_type: None,
            }),
            None => Err("requestBody must be a string or an array".into()),
        }
    }

    /// `http_proxy_host`/`_port` (and `_user`/`_password`) of the settings,
    /// for a clear-text client: the proxy's host and port, and the
    /// `Proxy-Authorization` value when a password is set.
    fn proxy(&self) -> Option<(String, u16, Option<String>)> {
        if self.ssl {
            return None;
        }
        let z = self.with(|s| s.setting.shallow_clone());
        let ht = z.array()?;
        let text = |k: &str| {
            ht.get(k)
                .and_then(zval_bytes)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .filter(|s| !s.is_empty())
        };
        let host = text("http_proxy_host")?;
        let port = ht.get("http_proxy_port").map(zval_f64).unwrap_or(0.0) as u16;
        let user = text("http_proxy_user")
            .or_else(|| text("http_proxy_username"))
            .unwrap_or_default();
        let auth = text("http_proxy_password").map(|pass| {
            format!(
                "Basic {}",
                ws::base64_encode(format!("{user}:{pass}").as_bytes())
            )
        });
        Some((host, port, auth))
    }

    /// The absolute-form target a request to a proxy names: the `Host`
    /// header set, else the host, with the port unless it has one.
    fn proxy_target(&self, headers: &[(String, Vec<u8>)], path: &str) -> String {
        let host = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("host"))
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
            .unwrap_or_else(|| self.host.clone());
        if host.contains(':') {
            format!("http://{host}{path}")
        } else {
            format!("http://{host}:{}{path}", self.port)
        }
    }

    fn resolve(&self) -> Result<SocketAddr, Fail> {
        self.resolve_at(&self.host, self.port as u16)
    }

    fn resolve_at(&self, host: &str, port: u16) -> Result<SocketAddr, Fail> {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Ok(SocketAddr::new(ip, port));
        }
        if host.eq_ignore_ascii_case("localhost") {
            return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
        }
        // Blocking getaddrinfo (see docs/compat.md).
        (host, port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .ok_or_else(|| Fail {
                kind: FailKind::Connect,
                code: 704,
                msg: format!("DNS Lookup resolve failed, host: {host}"),
            })
    }

    /// `exec_once`, again on a failed connect or a 502/503 answer, up to
    /// `max_retries` more times (Swoole's retry rule).
    fn exec(&self, path: &str, ws_key: Option<String>, this: Option<&Zval>) -> PhpResult<bool> {
        let retries = self.with(|s| s.opts.max_retries);
        let mut attempt = 0;
        loop {
            let ok = self.exec_once(path, ws_key.clone(), this)?;
            let status = self.with(|s| s.status_code);
            let again = attempt < retries
                && if ok {
                    status == 502 || status == 503
                } else {
                    status == ESTATUS_CONNECT_FAILED
                };
            if !again {
                return Ok(ok);
            }
            if ok {
                self.drop_conn();
            }
            attempt += 1;
        }
    }

    /// Sends a request built from the properties and, unless `defer`, reads
    /// the response; `ws_key` is the key of an upgrade request.
    fn exec_once(
        &self,
        path: &str,
        ws_key: Option<String>,
        this: Option<&Zval>,
    ) -> PhpResult<bool> {
        let cid = super::errors::need_coroutine()?;
        // `write_func`: the body goes to it piece by piece, not to `$body`.
        let write_func = this.and_then(|_| self.write_func());
        if path.is_empty() {
            self.set_error(SWOOLE_ERROR_INVALID_PARAMS, "Invalid parameters", 0);
            return Ok(false);
        }
        self.check(cid, Dir::Read)?;
        self.check(cid, Dir::Write)?;
        // A fresh response.
        self.with(|s| {
            s.headers = null();
            s.set_cookie_headers = null();
            s.body = string_zval("");
            s.pending = None;
        });
        // Reuse an idle keep-alive connection only while it is still open.
        let reuse = self.with(|s| match &s.conn {
            Some(c) if c.reader.is_some() && !c.websocket => Some(c.fd),
            _ => None,
        });
        if !reuse.is_some_and(hc::is_alive) {
            self.drop_conn();
        }
        self.set_error(0, "", 0);
        set_last_error(0);
        let opts = self.with(|s| s.opts);
        let method = self.with(|s| s.request_method.shallow_clone());
        let body = match self.body() {
            Ok(b) => b,
            Err(e) => {
                php_error(&ErrorType::Warning, &e.to_string());
                return Ok(false);
            }
        };
        let method = match zval_bytes(&method) {
            Some(m) if !m.is_empty() && !method.is_null() => {
                String::from_utf8_lossy(&m).into_owned()
            }
            _ => {
                if matches!(body, Body::None) {
                    "GET".into()
                } else {
                    "POST".into()
                }
            }
        };
        let default_port = if self.ssl { 443 } else { 80 };
        let proxy = self.proxy();
        let mut headers = self.header_pairs();
        let target = match &proxy {
            Some((_, _, auth)) => {
                let t = self.proxy_target(&headers, path);
                if let Some(a) = auth {
                    headers.push(("Proxy-Authorization".into(), a.clone().into_bytes()));
                }
                t
            }
            None => path.to_string(),
        };
        let spec = RequestSpec {
            method: method.clone(),
            path: target,
            host: if let Some(path) = hc::unix_path(&self.host) {
                path
            } else {
                // An IPv6 literal goes in brackets (RFC 7230 5.4).
                let h = if self.host.contains(':') && !self.host.starts_with('[') {
                    format!("[{}]", self.host)
                } else {
                    self.host.clone()
                };
                if self.port == default_port {
                    h
                } else {
                    format!("{h}:{}", self.port)
                }
            },
            headers,
            cookies: self.cookie_pairs(),
            body,
            keep_alive: opts.keep_alive,
            accept_encoding: opts.http_compression,
            basic_auth: self.with(|s| s.basic_auth.clone()),
        };
        let bytes = match hc::build_request(&spec) {
            Ok(b) => b,
            Err(e) => {
                php_error(&ErrorType::Warning, &e.to_string());
                return Ok(false);
            }
        };
        let head_len = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or(bytes.len());
        self.with(|s| s.header_out = Some(bytes[..head_len].to_vec()));
        let download = self.with(|s| {
            zval_bytes(&s.download_file)
                .filter(|f| !f.is_empty() && !s.download_file.is_null())
                .map(|f| {
                    (
                        String::from_utf8_lossy(&f).into_owned(),
                        s.download_offset.max(0) as u64,
                    )
                })
        });
        let ropts = ResponseOpts {
            head: method.eq_ignore_ascii_case("HEAD"),
            lowercase: opts.lowercase_header,
            decompress: opts.body_decompression,
            download,
        };

        // The connection: the idle one, or a new socket connected in the task.
        let existing = self.with(|s| {
            s.conn.as_mut().and_then(|c| {
                let r = c.reader.take()?;
                Some((c.fd, r, c.writer.clone()))
            })
        });
        let (fd, start): (i32, Start) = match existing {
            Some((fd, r, w)) => (fd, Start::Ready(r, w)),
            None if hc::unix_path(&self.host).is_some() => {
                let path = hc::unix_path(&self.host).unwrap_or_default();
                match hc::new_unix_socket() {
                    Ok(sock) => {
                        use std::os::fd::AsRawFd;
                        (sock.as_raw_fd(), Start::ConnectUnix(sock, path))
                    }
                    Err(e) => {
                        self.socket_failed(&e);
                        return Ok(false);
                    }
                }
            }
            None => {
                let addr = match &proxy {
                    Some((h, p, _)) => self.resolve_at(h, *p),
                    None => self.resolve(),
                };
                let addr = match addr {
                    Ok(a) => a,
                    Err(f) => {
                        self.set_fail(&f);
                        return Ok(false);
                    }
                };
                match hc::new_socket(&addr) {
                    Ok(sock) => {
                        use std::os::fd::AsRawFd;
                        (sock.as_raw_fd(), Start::Connect(sock, addr))
                    }
                    Err(e) => {
                        self.socket_failed(&e);
                        return Ok(false);
                    }
                }
            }
        };
        self.bind(cid, Dir::Read, fd);
        self.bind(cid, Dir::Write, fd);
        let gen = self.with(|s| s.gen);
        let defer = opts.defer;
        let connect_timeout = opts.connect();
        let tls = self
            .ssl
            .then(|| (self.with(|s| s.tls.clone()), self.host.clone()));
        let write_timeout = opts.write();
        let read_timeout = opts.read(0.0);
        let streamed = write_func.is_some() && !defer;
        let fut = async move {
            let connected = match start {
                Start::Ready(r, w) => Ok((r, w, false)),
                Start::ConnectUnix(sock, path) => hc::connect_unix(sock, path, connect_timeout)
                    .await
                    .map(|(r, w)| (r, w, true)),
                Start::Connect(sock, addr) => hc::connect_tls(sock, addr, connect_timeout, tls)
                    .await
                    .map(|(r, w)| (r, w, true)),
            };
            let (mut r, w, fresh) = match connected {
                Ok(c) => c,
                Err(f) => {
                    return Outcome {
                        conn: None,
                        fresh: false,
                        result: Err(f),
                        ropts,
                        body: None,
                    }
                }
            };
            if let Err(f) = hc::write_all(&w, &bytes, write_timeout).await {
                return Outcome {
                    conn: Some((r, w)),
                    fresh,
                    result: Err(f),
                    ropts,
                    body: None,
                };
            }
            if defer {
                return Outcome {
                    conn: Some((r, w)),
                    fresh,
                    result: Ok(None),
                    ropts,
                    body: None,
                };
            }
            if streamed {
                let res = hc::read_head(&mut r, &ropts, read_timeout).await;
                let (result, body) = match res {
                    Ok((resp, b)) => (Ok(Some(resp)), Some(b)),
                    Err(f) => (Err(f), None),
                };
                return Outcome {
                    conn: Some((r, w)),
                    fresh,
                    result,
                    ropts,
                    body,
                };
            }
            let res = hc::read_response(&mut r, &ropts, read_timeout).await;
            Outcome {
                conn: Some((r, w)),
                fresh,
                result: res.map(Some),
                ropts,
                body: None,
            }
        };
        let out = coro::io::run(fut);
        self.unbind(Dir::Read);
        self.unbind(Dir::Write);
        let Ok(out) = out else {
            return Ok(false);
        };
        let stale = self.with(|s| s.gen != gen);
        if stale {
            // close() ran meanwhile.
            if let Err(f) = &out.result {
                self.set_fail(f);
            } else {
                self.set_error(
                    ERR_CLIENT_NO_CONNECTION,
                    "Client no connection",
                    ESTATUS_SERVER_RESET,
                );
            }
            return Ok(false);
        }
        if let Some((r, w)) = out.conn {
            self.put_back(fd, r, w, out.fresh);
        }
        match out.result {
            Err(f) => {
                self.set_fail(&f);
                self.drop_conn();
                self.reset_request();
                Ok(false)
            }
            Ok(None) => {
                self.with(|s| {
                    s.pending = Some(Pending {
                        opts: out.ropts,
                        ws_key,
                    })
                });
                Ok(true)
            }
            Ok(Some(resp)) => match (out.body, write_func, this) {
                (Some(body), Some(func), Some(this)) => {
                    self.stream_body(cid, fd, gen, resp, body, &func, this, read_timeout)
                }
                _ => Ok(self.finish_response(resp, ws_key.as_deref())),
            },
        }
    }

    /// The `write_func` setting, when it is callable.
    fn write_func(&self) -> Option<Zval> {
        let z = self.with(|s| s.setting.shallow_clone());
        let f = z.array()?.get("write_func")?;
        f.is_callable().then(|| f.shallow_clone())
    }

    /// Reads the body after its head, handing each piece to `func($this,
    /// $data)` (as Swoole's `write_func`: `$body` stays empty). A `close()`
    /// in the callback, or an exception out of it, fails the request.
    #[allow(clippy::too_many_arguments)]
    fn stream_body(
        &self,
        cid: Cid,
        fd: i32,
        gen: u64,
        mut resp: Response,
        mut body: hc::BodyReader,
        func: &Zval,
        this: &Zval,
        timeout: Option<Duration>,
    ) -> PhpResult<bool> {
        loop {
            let reader = self.with(|s| s.conn.as_mut().and_then(|c| c.reader.take()));
            let Some(mut r) = reader else {
                self.no_connection();
                return Ok(false);
            };
            self.bind(cid, Dir::Read, fd);
            let fut = async move {
                let res = hc::read_piece_within(&mut r, &mut body, &mut resp, timeout).await;
                (r, body, resp, res)
            };
            let out = coro::io::run(fut);
            self.unbind(Dir::Read);
            let Ok((r, b, rsp, res)) = out else {
                return Ok(false);
            };
            (body, resp) = (b, rsp);
            if self.with(|s| s.gen != gen) {
                self.set_error(
                    ERR_CLIENT_NO_CONNECTION,
                    "Client no connection",
                    ESTATUS_SERVER_RESET,
                );
                return Ok(false);
            }
            self.with(|s| {
                if let Some(c) = s.conn.as_mut() {
                    c.reader = Some(r);
                }
            });
            let piece = match res {
                Err(f) => {
                    self.set_fail(&f);
                    self.drop_conn();
                    self.reset_request();
                    return Ok(false);
                }
                Ok(None) => break,
                Ok(Some(p)) => p,
            };
            let data = bytes_zval(&piece);
            let called = func.try_call(vec![this, &data]);
            if called.is_err() || self.with(|s| s.gen != gen) {
                // The callback failed or closed the client: the response
                // is cut short (as Swoole's parser stops).
                if self.with(|s| s.gen == gen) {
                    self.drop_conn();
                }
                self.set_error(
                    ERR_CLIENT_NO_CONNECTION,
                    "Client no connection",
                    ESTATUS_SERVER_RESET,
                );
                return Ok(false);
            }
        }
        resp.body = Vec::new();
        Ok(self.finish_response(resp, None))
    }

    fn put_back(&self, fd: i32, r: Reader, w: Writer, fresh: bool) {
        self.with(|s| {
            if fresh || s.conn.is_none() {
                let (local, peer) = (r.local_addr(), r.peer_addr());
                let peer_cert = r.peer_cert();
                s.conn = Some(Conn {
                    fd,
                    reader: Some(r),
                    writer: w,
                    websocket: false,
                    deflate: false,
                    local,
                    peer,
                    peer_cert,
                    socket: None,
                });
            } else if let Some(c) = s.conn.as_mut() {
                c.reader = Some(r);
            }
        });
    }

    /// `uploadFiles`, `downloadFile` and `downloadOffset` are per request.
    fn reset_request(&self) {
        self.with(|s| {
            s.upload_files = null();
            s.download_file = null();
            s.download_offset = 0;
        });
    }

    /// Response into properties; the WebSocket handshake check.
    fn finish_response(&self, resp: Response, ws_key: Option<&str>) -> bool {
        self.reset_request();
        let mut groups: Vec<(String, Vec<Zval>)> = Vec::new();
        let mut set_cookies: Vec<Vec<u8>> = Vec::new();
        for (k, v) in &resp.headers {
            if k.eq_ignore_ascii_case("set-cookie") {
                set_cookies.push(v.to_vec());
            }
            match groups.iter_mut().find(|(n, _)| n == k) {
                Some((_, vals)) => vals.push(bytes_zval(v)),
                None => groups.push((k.clone(), vec![bytes_zval(v)])),
            }
        }
        let mut headers = ZendHashTable::new();
        for (k, mut vals) in groups {
            if vals.len() == 1 {
                let _ = headers.insert(k.as_str(), vals.remove(0));
            } else {
                let mut arr = ZendHashTable::new();
                for v in vals {
                    let _ = arr.push(v);
                }
                let _ = headers.insert(k.as_str(), arr);
            }
        }
        let mut headers_z = Zval::new();
        headers_z.set_hashtable(headers);
        let cookies_old = self.with(|s| s.cookies.shallow_clone());
        let (cookies_z, sch_z) = if set_cookies.is_empty() {
            (cookies_old, null())
        } else {
            let mut jar: ZBox<ZendHashTable> = match cookies_old.array() {
                Some(a) => a.to_owned(),
                None => ZendHashTable::new(),
            };
            let mut sch = ZendHashTable::new();
            for raw in &set_cookies {
                let (name, value) = hc::parse_set_cookie(raw);
                if name.is_empty() {
                    let _ = jar.push(bytes_zval(&value));
                } else {
                    let _ = jar.insert(name.as_str(), bytes_zval(&value));
                }
                let _ = sch.push(bytes_zval(raw));
            }
            let mut a = Zval::new();
            a.set_hashtable(jar);
            let mut b = Zval::new();
            b.set_hashtable(sch);
            (a, b)
        };
        let websocket = ws_key.is_some()
            && resp.status == 101
            && resp.header("upgrade").is_some_and(|v| {
                String::from_utf8_lossy(v)
                    .to_ascii_lowercase()
                    .contains("websocket")
            });
        let old = self.with(|s| {
            let old = (
                std::mem::replace(&mut s.headers, headers_z),
                std::mem::replace(&mut s.set_cookie_headers, sch_z),
                std::mem::replace(&mut s.cookies, cookies_z),
                std::mem::replace(&mut s.body, bytes_zval(&resp.body)),
            );
            s.status_code = resp.status as i64;
            old
        });
        drop(old);
        // Like Swoole, a 101 with `Upgrade: websocket` is enough
        // (`Sec-WebSocket-Accept` is not checked).
        if websocket {
            let deflate = self.with(|s| s.opts.compression) && hc::ws_deflate_accepted(&resp);
            self.with(|s| {
                if let Some(c) = s.conn.as_mut() {
                    c.websocket = true;
                    c.deflate = deflate;
                }
            });
            return true;
        }
        let keep = self.with(|s| s.opts.keep_alive) && resp.keep_alive;
        if !keep {
            self.drop_conn();
        }
        true
    }

    /// Writes a frame; a small one usually goes out without suspending.
    fn send_frame(&self, opcode: u8, flags: u8, payload: &[u8]) -> PhpResult<bool> {
        let cid = super::errors::need_coroutine()?;
        if !self.is_connected() {
            self.no_connection();
            return Ok(false);
        }
        let Some((fd, w, deflate)) =
            self.with(|s| s.conn.as_ref().map(|c| (c.fd, c.writer.clone(), c.deflate)))
        else {
            self.no_connection();
            return Ok(false);
        };
        if !self.is_websocket() {
            set_last_error(hc::ERR_WS_HANDSHAKE_FAILED as i64);
            php_error(
                &ErrorType::Warning,
                "websocket handshake failed, cannot push data",
            );
            self.set_error(
                hc::ERR_WS_HANDSHAKE_FAILED as i64,
                "websocket handshake failed, cannot push data",
                ESTATUS_CONNECT_FAILED,
            );
            return Ok(false);
        }
        let mask = self.with(|s| s.opts.ctl.mask);
        // RSV1 is ours to set (permessage-deflate); other RSV bits and
        // FLAG_COMPRESS from the caller are dropped.
        let frame = hc::ws_message(opcode, flags & ws::FLAG_FIN, payload, mask, deflate);
        self.check(cid, Dir::Write)?;
        // The usual case never suspends, so it needs no binding.
        let started = match hc::try_write(&w, &frame) {
            Ok(hc::TryWrite::Done) => return Ok(true),
            Ok(hc::TryWrite::Rest(guard, done)) => Some((guard, done)),
            Ok(hc::TryWrite::Busy) => None,
            Err(f) => {
                self.fail_ws(&f);
                return Ok(false);
            }
        };
        self.bind(cid, Dir::Write, fd);
        let timeout = self.with(|s| s.opts.write());
        let res = coro::io::run(async move {
            match started {
                Some((guard, done)) => hc::write_rest(guard, &frame[done..], timeout).await,
                None => hc::write_all(&w, &frame, timeout).await,
            }
        });
        self.unbind(Dir::Write);
        match res {
            Ok(Ok(())) => Ok(true),
            Ok(Err(f)) => {
                self.fail_ws(&f);
                Ok(false)
            }
            Err(_) => Ok(false),
        }
    }

    fn fail_ws(&self, f: &Fail) {
        self.set_error(f.code as i64, &f.msg, ESTATUS_SERVER_RESET);
        self.drop_conn();
    }

    fn ws_recv(&self, cid: Cid, timeout: f64) -> PhpResult<Zval> {
        self.check(cid, Dir::Read)?;
        let (opts, gen) = self.with(|s| (s.opts, s.gen));
        let taken = self.with(|s| {
            s.conn.as_mut().and_then(|c| {
                let r = c.reader.take()?;
                Some((c.fd, r, c.writer.clone(), c.deflate))
            })
        });
        let Some((fd, mut r, w, deflate)) = taken else {
            self.no_connection();
            return Ok(false_zval());
        };
        let ctl = WsControl {
            deflate,
            ..opts.ctl
        };
        // Fast path: a whole message already buffered.
        let out = match hc::ws_try_buffered(&mut r, opts.max_message) {
            Some(ev) => Ok((r, Ok(ev))),
            None => {
                self.bind(cid, Dir::Read, fd);
                let t = opts.read(timeout);
                let out = coro::io::run(async move {
                    let res = hc::ws_recv(&mut r, &w, ctl, opts.max_message, t).await;
                    (r, res)
                });
                self.unbind(Dir::Read);
                out
            }
        };
        let Ok((r, res)) = out else {
            return Ok(false_zval());
        };
        let current = self.with(|s| {
            if s.gen != gen {
                return false;
            }
            if let Some(c) = s.conn.as_mut() {
                c.reader = Some(r);
            }
            true
        });
        if !current {
            // close() ran meanwhile.
            self.no_connection();
            return Ok(false_zval());
        }
        match res {
            Ok(WsEvent::Frame {
                opcode,
                flags,
                data,
            }) => Ok(frame_zval(fd as i64, opcode, flags, &data)),
            Ok(WsEvent::Closed) => {
                self.drop_conn();
                Ok(string_zval(""))
            }
            Err(f) => {
                // Swoole reports every failed recv as a server reset; a
                // timeout keeps the connection.
                self.set_error(f.code as i64, &f.msg, ESTATUS_SERVER_RESET);
                if f.kind != FailKind::Timeout {
                    self.drop_conn();
                }
                Ok(false_zval())
            }
        }
    }
}

enum Start {
    Ready(Reader, Writer),
    Connect(tokio::net::TcpSocket, SocketAddr),
    /// A `unix:/path` host.
    ConnectUnix(tokio::net::UnixSocket, String),
}

struct Outcome {
    conn: Option<(Reader, Writer)>,
    fresh: bool,
    result: Result<Option<Response>, Fail>,
    ropts: ResponseOpts,
    /// `write_func`: the body left to read after the head in `result`.
    body: Option<hc::BodyReader>,
}

/// A close payload for a PHP `$code` (as Swoole writes it: its low 16 bits)
/// and reason (`ws::close::CloseFrame::encode`).
fn close_payload(code: i64, reason: &[u8]) -> Vec<u8> {
    ws::close::CloseFrame::new(code as u16, bytes::Bytes::copy_from_slice(reason))
        .encode()
        .to_vec()
}

fn frame_zval(fd: i64, opcode: u8, flags: u8, data: &[u8]) -> Zval {
    let obj: ZBox<ZendObject> = if opcode == ws::OP_CLOSE {
        ZendClassObject::new(CloseFrame::message(fd, data, flags)).into()
    } else {
        ZendClassObject::new(Frame::message(fd, data, opcode, flags)).into()
    };
    let mut z = Zval::new();
    let _ = obj.set_zval(&mut z, false);
    z
}

/// The client object itself, for `write_func($client, $data)`.
fn this_zval(obj: &mut ZendClassObject<Client>) -> Zval {
    let mut z = Zval::new();
    z.set_object(&mut obj.std);
    z
}

fn ce_of<T: RegisteredClass>() -> &'static ClassEntry {
    T::get_metadata().ce()
}

#[php_impl]
impl Client {
    #[php(defaults(port = 0, ssl = false))]
    pub fn __construct(host: String, port: i64, ssl: bool) -> PhpResult<Self> {
        if host.is_empty() {
            return Err(client_exception("host is empty", libc::EINVAL));
        }
        if port != 0 && !(1..=65535).contains(&port) {
            return Err(client_exception(
                "The port is invalid",
                SWOOLE_ERROR_INVALID_PARAMS as i32,
            ));
        }
        let port = match port {
            0 if ssl => 443,
            0 => 80,
            p => p,
        };
        Ok(Client {
            host,
            port,
            ssl,
            inner: RefCell::new(Inner {
                opts: Opts::default(),
                tls: TlsOptions::default(),
                conn: None,
                gen: 0,
                reading: None,
                writing: None,
                header_out: None,
                basic_auth: None,
                pending: None,
                err_code: 0,
                err_msg: String::new(),
                status_code: 0,
                setting: null(),
                request_method: null(),
                request_headers: null(),
                request_body: null(),
                upload_files: null(),
                download_file: null(),
                download_offset: 0,
                headers: null(),
                set_cookie_headers: null(),
                cookies: null(),
                body: string_zval(""),
            }),
        })
    }

    pub fn __destruct(&self) {}

    /// Merges `$settings` into `setting` and applies what rswoole acts on.
    pub fn set(&self, settings: &ZendHashTable) -> bool {
        if settings.is_empty() {
            return false;
        }
        let mut merged: ZBox<ZendHashTable> = self.with(|s| match s.setting.array() {
            Some(a) => a.to_owned(),
            None => ZendHashTable::new(),
        });
        let mut o = self.with(|s| s.opts);
        let mut t = self.with(|s| s.tls.clone());
        for (k, v) in settings.iter() {
            let key = k.to_string();
            if key.starts_with("ssl_") && !super::socket_coro::tls_setting(&mut t, &key, v) {
                return false;
            }
            match key.as_str() {
                "timeout" => o.timeout = zval_f64(v),
                "connect_timeout" => o.connect_timeout = zval_f64(v),
                "read_timeout" => o.read_timeout = zval_f64(v),
                "write_timeout" => o.write_timeout = zval_f64(v),
                "keep_alive" => o.keep_alive = v.is_true() || zval_f64(v) != 0.0,
                "lowercase_header" => o.lowercase_header = truthy(v),
                "http_compression" => o.http_compression = truthy(v),
                "body_decompression" => o.body_decompression = truthy(v),
                "defer" => o.defer = truthy(v),
                "websocket_compression" => o.compression = truthy(v),
                "open_websocket_close_frame" => o.ctl.close = truthy(v),
                "open_websocket_ping_frame" => o.ctl.ping = truthy(v),
                "open_websocket_pong_frame" => o.ctl.pong = truthy(v),
                "package_max_length" => {
                    let n = zval_f64(v);
                    if n > 0.0 {
                        o.max_message = n as usize;
                    }
                }
                "max_retries" if zval_f64(v) >= 0.0 => {
                    o.max_retries = (zval_f64(v) as u32).min(255);
                }
                "max_retries" => {
                    php_error(
                        &ErrorType::Warning,
                        &format!(
                            "max_retries must be greater than or equal to 0, got {}",
                            zval_f64(v) as i64
                        ),
                    );
                    return false;
                }
                "http_proxy_host" if self.ssl => {
                    php_error(
                        &ErrorType::Warning,
                        "option 'http_proxy_host' of an ssl client is not supported by rswoole and is ignored",
                    );
                }
                "socks5_host" | "bind_address" => {
                    php_error(
                        &ErrorType::Warning,
                        &format!("option '{key}' is not supported by rswoole and is ignored"),
                    );
                }
                // `websocket_mask`: frames are always masked (docs/compat.md).
                _ => {}
            }
            let _ = merged.insert(key.as_str(), v.shallow_clone());
        }
        let mut z = Zval::new();
        z.set_hashtable(merged);
        let old = self.with(|s| {
            s.opts = o;
            s.tls = t;
            std::mem::replace(&mut s.setting, z)
        });
        drop(old);
        true
    }

    pub fn get_defer(&self) -> bool {
        self.with(|s| s.opts.defer)
    }

    #[php(defaults(defer = true))]
    pub fn set_defer(&self, defer: bool) -> bool {
        self.with(|s| s.opts.defer = defer);
        true
    }

    pub fn set_method(&self, method: String) -> bool {
        let old = self.with(|s| std::mem::replace(&mut s.request_method, string_zval(&method)));
        drop(old);
        true
    }

    pub fn set_headers(&self, headers: &ZendHashTable) -> bool {
        let mut z = Zval::new();
        z.set_hashtable(headers.to_owned());
        let old = self.with(|s| std::mem::replace(&mut s.request_headers, z));
        drop(old);
        true
    }

    pub fn set_basic_auth(&self, username: String, password: String) {
        let token = ws::base64_encode(format!("{username}:{password}").as_bytes());
        self.with(|s| s.basic_auth = Some(format!("Basic {token}")));
    }

    pub fn set_cookies(&self, cookies: &ZendHashTable) -> bool {
        let mut z = Zval::new();
        z.set_hashtable(cookies.to_owned());
        let old = self.with(|s| std::mem::replace(&mut s.cookies, z));
        drop(old);
        true
    }

    pub fn set_data(&self, data: &Zval) -> bool {
        let old = self.with(|s| std::mem::replace(&mut s.request_body, data.shallow_clone()));
        drop(old);
        true
    }

    /// Adds a file to upload as multipart/form-data.
    #[php(defaults(offset = 0, length = 0))]
    pub fn add_file(
        &self,
        path: String,
        name: String,
        r#type: Option<String>,
        filename: Option<String>,
        offset: i64,
        length: i64,
    ) -> bool {
        let mut length = length;
        let warn = |m: String| php_error(&ErrorType::Warning, &m);
        if offset < 0 {
            warn(format!(
                "parameter $offset[{offset}] must be greater than or equal to 0"
            ));
            return false;
        }
        if length < 0 {
            warn(format!(
                "parameter $length[{length}] must be greater than or equal to 0"
            ));
            return false;
        }
        let size = match std::fs::metadata(&path) {
            Ok(m) => m.len() as i64,
            Err(e) => {
                warn(format!("stat({path}) failed, Error: {e}"));
                return false;
            }
        };
        if size == 0 {
            warn(format!("cannot send empty file[{path}]"));
            return false;
        }
        if size <= offset {
            warn(format!("parameter $offset[{offset}] exceeds the file size"));
            return false;
        }
        if length > size - offset {
            warn(format!("parameter $length[{length}] exceeds the file size"));
            return false;
        }
        if length == 0 {
            length = size - offset;
        }
        let mime = r#type
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| mime_of(&path).to_string());
        let filename = filename
            .filter(|f| !f.is_empty())
            .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(&path).to_string());
        let mut entry = ZendHashTable::new();
        let _ = entry.insert("path", string_zval(&path));
        let _ = entry.insert("name", string_zval(&name));
        let _ = entry.insert("filename", string_zval(&filename));
        let _ = entry.insert("type", string_zval(&mime));
        let _ = entry.insert("size", length);
        let _ = entry.insert("offset", offset);
        self.push_upload(entry)
    }

    /// Adds in-memory content to upload as a file.
    pub fn add_data(
        &self,
        data: &Zval,
        name: String,
        r#type: Option<String>,
        filename: Option<String>,
    ) -> bool {
        let content = zval_bytes(data).unwrap_or_default();
        let mime = r#type
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "application/octet-stream".into());
        let filename = filename
            .filter(|f| !f.is_empty())
            .unwrap_or_else(|| name.clone());
        let mut entry = ZendHashTable::new();
        let _ = entry.insert("content", bytes_zval(&content));
        let _ = entry.insert("name", string_zval(&name));
        let _ = entry.insert("filename", string_zval(&filename));
        let _ = entry.insert("type", string_zval(&mime));
        let _ = entry.insert("size", content.len() as i64);
        self.push_upload(entry)
    }

    pub fn execute(self_: &mut ZendClassObject<Client>, path: String) -> PhpResult<bool> {
        let this = this_zval(self_);
        self_.exec(&path, None, Some(&this))
    }

    pub fn get(self_: &mut ZendClassObject<Client>, path: String) -> PhpResult<bool> {
        let old = self_.with(|s| std::mem::replace(&mut s.request_method, string_zval("GET")));
        drop(old);
        let this = this_zval(self_);
        self_.exec(&path, None, Some(&this))
    }

    pub fn post(self_: &mut ZendClassObject<Client>, path: String, data: &Zval) -> PhpResult<bool> {
        let old = self_.with(|s| {
            (
                std::mem::replace(&mut s.request_method, string_zval("POST")),
                std::mem::replace(&mut s.request_body, data.shallow_clone()),
            )
        });
        drop(old);
        let this = this_zval(self_);
        self_.exec(&path, None, Some(&this))
    }

    /// Saves the response body to `$file` (from `$offset`).
    #[php(defaults(offset = 0))]
    pub fn download(&self, path: String, file: &Zval, offset: i64) -> PhpResult<bool> {
        if offset < 0 {
            php_error(
                &ErrorType::Warning,
                &format!("parameter $offset[{offset}] must be greater than or equal to 0"),
            );
            return Ok(false);
        }
        let old = self.with(|s| {
            s.download_offset = offset;
            std::mem::replace(&mut s.download_file, file.shallow_clone())
        });
        drop(old);
        self.exec(&path, None, None)
    }

    pub fn get_body(&self) -> Zval {
        self.with(|s| s.body.shallow_clone())
    }

    pub fn get_headers(&self) -> Zval {
        self.with(|s| s.headers.shallow_clone())
    }

    pub fn get_cookies(&self) -> Zval {
        self.with(|s| s.cookies.shallow_clone())
    }

    pub fn get_status_code(&self) -> i64 {
        self.with(|s| s.status_code)
    }

    /// The head of the last request sent (up to the blank line), or false.
    pub fn get_header_out(&self) -> Zval {
        match self.with(|s| s.header_out.clone()) {
            Some(h) => bytes_zval(&h),
            None => false_zval(),
        }
    }

    pub fn getsockname(&self) -> Zval {
        self.addr_zval(true)
    }

    pub fn getpeername(&self) -> Zval {
        self.addr_zval(false)
    }

    /// The server's certificate in PEM, or false (no connection, or not
    /// an ssl client: `SWOOLE_ERROR_SSL_EMPTY_PEER_CERTIFICATE`).
    pub fn get_peer_cert(&self) -> Zval {
        if !self.is_connected() {
            return false_zval();
        }
        let Some(cert) = self.with(|s| s.conn.as_ref().map(|c| c.peer_cert.clone())) else {
            return false_zval();
        };
        match cert {
            Some(pem) => string_zval(&pem),
            None => {
                let code = crate::engine::tls::client::ERR_EMPTY_PEER_CERT;
                self.set_error(code as i64, "SSL empty peer certificate", 0);
                false_zval()
            }
        }
    }

    /// The WebSocket handshake on `$path`.
    pub fn upgrade(&self, path: String) -> PhpResult<bool> {
        let key = hc::ws_key();
        let mut headers: ZBox<ZendHashTable> = self.with(|s| match s.request_headers.array() {
            Some(a) => a.to_owned(),
            None => ZendHashTable::new(),
        });
        let _ = headers.insert("Connection", "Upgrade");
        let _ = headers.insert("Upgrade", "websocket");
        let _ = headers.insert("Sec-WebSocket-Version", "13");
        let _ = headers.insert("Sec-WebSocket-Key", key.as_str());
        if self.with(|s| s.opts.compression) {
            let _ = headers.insert("Sec-WebSocket-Extensions", hc::WS_DEFLATE_OFFER);
        }
        let mut z = Zval::new();
        z.set_hashtable(headers);
        let old = self.with(|s| {
            s.opts.defer = false;
            (
                std::mem::replace(&mut s.request_headers, z),
                std::mem::replace(&mut s.request_method, string_zval("GET")),
            )
        });
        drop(old);
        // An upgraded connection is not reused for the handshake.
        if self.is_websocket() {
            self.drop_conn();
        }
        self.exec(&path, Some(key), None)
    }

    /// Sends a WebSocket message (`$data` may be a `Swoole\WebSocket\Frame`).
    #[php(defaults(opcode = 1))]
    pub fn push(&self, data: &Zval, opcode: i64, flags: Option<&Zval>) -> PhpResult<bool> {
        let mut opcode = opcode;
        let mut flags = flags.map_or(ws::FLAG_FIN as i64, |f| {
            f.long()
                .or_else(|| f.bool().map(i64::from))
                .unwrap_or(zval_f64(f) as i64)
        });
        // A string is framed straight from the PHP string, without a copy.
        let payload: std::borrow::Cow<[u8]>;
        match data.object() {
            Some(obj) if obj.instance_of(ce_of::<CloseFrame>()) => {
                let Some(f) = ZendClassObject::<CloseFrame>::from_zend_obj(obj) else {
                    return Ok(false);
                };
                opcode = ws::OP_CLOSE as i64;
                flags = frame_flags(f.flags, f.finish);
                payload = close_payload(f.code, &f.reason.0).into();
            }
            Some(obj) if obj.instance_of(ce_of::<Frame>()) => {
                let Some(f) = ZendClassObject::<Frame>::from_zend_obj(obj) else {
                    return Ok(false);
                };
                opcode = f.opcode;
                flags = frame_flags(f.flags, f.finish);
                payload = if opcode == ws::OP_CLOSE as i64 {
                    close_payload(ws::close::NORMAL as i64, &f.data.0).into()
                } else {
                    f.data.0.clone().into()
                };
            }
            _ => {
                payload = match data.zend_str() {
                    Some(z) => z.as_bytes().into(),
                    None => zval_bytes(data).unwrap_or_default().into(),
                };
            }
        }
        if !matches!(opcode, 0..=2 | 8..=10) {
            set_last_error(ERR_WS_BAD_OPCODE);
            php_error(&ErrorType::Warning, "the maximum value of opcode is 10");
            self.set_error(
                ERR_WS_BAD_OPCODE,
                "websocket frame pack failed",
                self.with(|s| s.status_code),
            );
            return Ok(false);
        }
        self.send_frame(opcode as u8, flags as u8, &payload)
    }

    /// The next WebSocket message (a `Frame`, a `CloseFrame`, `''` when the
    /// server closed, false on timeout or error); for a deferred request,
    /// its response (bool).
    #[php(defaults(timeout = 0.0))]
    pub fn recv(&self, timeout: f64) -> PhpResult<Zval> {
        let cid = super::errors::need_coroutine()?;
        if !self.is_connected() {
            self.no_connection();
            return Ok(false_zval());
        }
        if self.is_websocket() {
            return self.ws_recv(cid, timeout);
        }
        self.check(cid, Dir::Read)?;
        let Some(pending) = self.with(|s| s.pending.take()) else {
            return Ok(false_zval());
        };
        let Some(fd) = self.with(|s| s.conn.as_ref().map(|c| c.fd)) else {
            return Ok(false_zval());
        };
        self.bind(cid, Dir::Read, fd);
        let gen = self.with(|s| s.gen);
        let Some(mut r) = self.with(|s| s.conn.as_mut().and_then(|c| c.reader.take())) else {
            self.unbind(Dir::Read);
            return Ok(false_zval());
        };
        let t = self.with(|s| s.opts.read(timeout));
        let ropts = pending.opts;
        let res = coro::io::run(async move {
            let res = hc::read_response(&mut r, &ropts, t).await;
            (r, res)
        });
        self.unbind(Dir::Read);
        let Ok((r, res)) = res else {
            return Ok(false_zval());
        };
        let current = self.with(|s| {
            if s.gen != gen {
                return false;
            }
            if let Some(c) = s.conn.as_mut() {
                c.reader = Some(r);
            }
            true
        });
        if !current {
            self.no_connection();
            return Ok(false_zval());
        }
        let mut out = Zval::new();
        match res {
            Ok(resp) => out.set_bool(self.finish_response(resp, pending.ws_key.as_deref())),
            Err(f) => {
                self.set_fail(&f);
                self.drop_conn();
                self.reset_request();
                out.set_bool(false);
            }
        }
        Ok(out)
    }

    /// Closes the connection; false when there is none.
    pub fn close(&self) -> bool {
        self.is_connected() && self.drop_conn()
    }

    pub fn ping(&self, data: Option<String>) -> PhpResult<bool> {
        if !self.is_connected() || !self.is_websocket() {
            return Ok(false);
        }
        self.send_frame(
            ws::OP_PING,
            ws::FLAG_FIN,
            data.unwrap_or_default().as_bytes(),
        )
    }

    /// Sends a close frame with `$code` and `$reason`, then closes.
    #[php(defaults(code = 1000))]
    pub fn disconnect(&self, code: i64, reason: Option<String>) -> PhpResult<bool> {
        if !self.is_connected() || !self.is_websocket() {
            return Ok(false);
        }
        let payload = close_payload(code, reason.unwrap_or_default().as_bytes());
        let r = self.send_frame(ws::OP_CLOSE, ws::FLAG_FIN, &payload);
        self.drop_conn();
        r
    }

    // ---- properties ----

    #[php(getter, name = "errCode")]
    pub fn prop_err_code(&self) -> i64 {
        self.with(|s| s.err_code)
    }

    #[php(setter, name = "errCode")]
    pub fn set_prop_err_code(&self, v: i64) {
        self.with(|s| s.err_code = v);
    }

    #[php(getter, name = "errMsg")]
    pub fn prop_err_msg(&self) -> String {
        self.with(|s| s.err_msg.clone())
    }

    #[php(setter, name = "errMsg")]
    pub fn set_prop_err_msg(&self, v: String) {
        self.with(|s| s.err_msg = v);
    }

    #[php(getter, name = "socket")]
    pub fn prop_socket(&self) -> Mixed {
        Mixed(self.socket_zval())
    }

    #[php(getter, name = "connected")]
    pub fn prop_connected(&self) -> bool {
        self.is_connected()
    }

    #[php(getter, name = "host")]
    pub fn prop_host(&self) -> String {
        self.host.clone()
    }

    #[php(getter, name = "port")]
    pub fn prop_port(&self) -> i64 {
        self.port
    }

    #[php(getter, name = "ssl")]
    pub fn prop_ssl(&self) -> bool {
        self.ssl
    }

    #[php(getter, name = "setting")]
    pub fn prop_setting(&self) -> Mixed {
        Mixed(self.with(|s| s.setting.shallow_clone()))
    }

    #[php(setter, name = "setting")]
    pub fn set_prop_setting(&self, v: Mixed) {
        let old = self.with(|s| std::mem::replace(&mut s.setting, v.0));
        drop(old);
    }

    #[php(getter, name = "requestMethod")]
    pub fn prop_request_method(&self) -> Mixed {
        Mixed(self.with(|s| s.request_method.shallow_clone()))
    }

    #[php(setter, name = "requestMethod")]
    pub fn set_prop_request_method(&self, v: Mixed) {
        let old = self.with(|s| std::mem::replace(&mut s.request_method, v.0));
        drop(old);
    }

    #[php(getter, name = "requestHeaders")]
    pub fn prop_request_headers(&self) -> Mixed {
        Mixed(self.with(|s| s.request_headers.shallow_clone()))
    }

    #[php(setter, name = "requestHeaders")]
    pub fn set_prop_request_headers(&self, v: Mixed) {
        let old = self.with(|s| std::mem::replace(&mut s.request_headers, v.0));
        drop(old);
    }

    #[php(getter, name = "requestBody")]
    pub fn prop_request_body(&self) -> Mixed {
        Mixed(self.with(|s| s.request_body.shallow_clone()))
    }

    #[php(setter, name = "requestBody")]
    pub fn set_prop_request_body(&self, v: Mixed) {
        let old = self.with(|s| std::mem::replace(&mut s.request_body, v.0));
        drop(old);
    }

    #[php(getter, name = "uploadFiles")]
    pub fn prop_upload_files(&self) -> Mixed {
        Mixed(self.with(|s| s.upload_files.shallow_clone()))
    }

    #[php(setter, name = "uploadFiles")]
    pub fn set_prop_upload_files(&self, v: Mixed) {
        let old = self.with(|s| std::mem::replace(&mut s.upload_files, v.0));
        drop(old);
    }

    #[php(getter, name = "downloadFile")]
    pub fn prop_download_file(&self) -> Mixed {
        Mixed(self.with(|s| s.download_file.shallow_clone()))
    }

    #[php(setter, name = "downloadFile")]
    pub fn set_prop_download_file(&self, v: Mixed) {
        let old = self.with(|s| std::mem::replace(&mut s.download_file, v.0));
        drop(old);
    }

    #[php(getter, name = "downloadOffset")]
    pub fn prop_download_offset(&self) -> i64 {
        self.with(|s| s.download_offset)
    }

    #[php(setter, name = "downloadOffset")]
    pub fn set_prop_download_offset(&self, v: i64) {
        self.with(|s| s.download_offset = v);
    }

    #[php(getter, name = "statusCode")]
    pub fn prop_status_code(&self) -> i64 {
        self.with(|s| s.status_code)
    }

    #[php(setter, name = "statusCode")]
    pub fn set_prop_status_code(&self, v: i64) {
        self.with(|s| s.status_code = v);
    }

    #[php(getter, name = "headers")]
    pub fn prop_headers(&self) -> Mixed {
        Mixed(self.with(|s| s.headers.shallow_clone()))
    }

    #[php(setter, name = "headers")]
    pub fn set_prop_headers(&self, v: Mixed) {
        let old = self.with(|s| std::mem::replace(&mut s.headers, v.0));
        drop(old);
    }

    #[php(getter, name = "set_cookie_headers")]
    pub fn prop_set_cookie_headers(&self) -> Mixed {
        Mixed(self.with(|s| s.set_cookie_headers.shallow_clone()))
    }

    #[php(setter, name = "set_cookie_headers")]
    pub fn set_prop_set_cookie_headers(&self, v: Mixed) {
        let old = self.with(|s| std::mem::replace(&mut s.set_cookie_headers, v.0));
        drop(old);
    }

    #[php(getter, name = "cookies")]
    pub fn prop_cookies(&self) -> Mixed {
        Mixed(self.with(|s| s.cookies.shallow_clone()))
    }

    #[php(setter, name = "cookies")]
    pub fn set_prop_cookies(&self, v: Mixed) {
        let old = self.with(|s| std::mem::replace(&mut s.cookies, v.0));
        drop(old);
    }

    #[php(getter, name = "body")]
    pub fn prop_body(&self) -> Mixed {
        Mixed(self.with(|s| s.body.shallow_clone()))
    }

    #[php(setter, name = "body")]
    pub fn set_prop_body(&self, v: Mixed) {
        let old = self.with(|s| std::mem::replace(&mut s.body, v.0));
        drop(old);
    }
}

fn truthy(v: &Zval) -> bool {
    v.is_true()
        || v.long().is_some_and(|l| l != 0)
        || v.str().is_some_and(|s| !s.is_empty() && s != "0")
}

impl Client {
    fn push_upload(&self, entry: ZBox<ZendHashTable>) -> bool {
        let mut list: ZBox<ZendHashTable> = self.with(|s| match s.upload_files.array() {
            Some(a) => a.to_owned(),
            None => ZendHashTable::new(),
        });
        let ok = list.push(entry).is_ok();
        let mut z = Zval::new();
        z.set_hashtable(list);
        let old = self.with(|s| std::mem::replace(&mut s.upload_files, z));
        drop(old);
        ok
    }

    fn addr_zval(&self, local: bool) -> Zval {
        self.is_connected();
        let addr = self.with(|s| {
            s.conn
                .as_ref()
                .and_then(|c| if local { c.local } else { c.peer })
        });
        let Some(a) = addr else {
            self.no_connection();
            return false_zval();
        };
        let mut ht = ZendHashTable::new();
        let _ = ht.insert("address", a.ip().to_string());
        let _ = ht.insert("port", a.port() as i64);
        let mut z = Zval::new();
        z.set_hashtable(ht);
        z
    }
}

/// `Swoole\Coroutine\Http\Client\Exception` (extends `Swoole\Exception`)
/// and the `Co\...` aliases; called from module startup after the classes.
pub fn register_classes(short: bool) -> ext_php_rs::error::Result<()> {
    let e = super::internal_subclass(
        "Swoole\\Coroutine\\Http\\Client\\Exception",
        (exception_ce, "Swoole\\Exception"),
    )?;
    let _ = EXCEPTION.set(CeRef(e));
    if short {
        super::class_alias("Co\\Http\\Client", ce_of::<Client>());
        super::class_alias("Co\\Http\\Client\\Exception", e);
    }
    Ok(())
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module
        .class::<Client>()
        .constant((
            "SWOOLE_HTTP_CLIENT_ESTATUS_CONNECT_FAILED",
            ESTATUS_CONNECT_FAILED,
            &[],
        ))
        .constant((
            "SWOOLE_HTTP_CLIENT_ESTATUS_REQUEST_TIMEOUT",
            ESTATUS_REQUEST_TIMEOUT,
            &[],
        ))
        .constant((
            "SWOOLE_HTTP_CLIENT_ESTATUS_SERVER_RESET",
            ESTATUS_SERVER_RESET,
            &[],
        ))
        .constant((
            "SWOOLE_HTTP_CLIENT_ESTATUS_SEND_FAILED",
            ESTATUS_SEND_FAILED,
            &[],
        ))
        .constant((
            "SWOOLE_ERROR_CLIENT_NO_CONNECTION",
            ERR_CLIENT_NO_CONNECTION,
            &[],
        ))
}

/// A frame object's flags as Swoole's `FrameObject` reads them: its
/// `flags` (the `SWOOLE_WEBSOCKET_FLAG_*` bits) with FIN taken from
/// `finish`.
fn frame_flags(flags: i64, finish: bool) -> i64 {
    (flags & 0x3f & !(ws::FLAG_FIN as i64)) | if finish { ws::FLAG_FIN as i64 } else { 0 }
}
