//! `Swoole\Http\Response`: status, headers, cookies, `write()`, `end()`,
//! `sendfile()`, `redirect()`, over the engine's `Responder`.
//!
//! After `end()` every method warns and returns false (the engine refuses
//! the call); nothing here can crash the worker.

use bytes::Bytes;
use ext_php_rs::error::php_error;
use ext_php_rs::flags::{DataType, ErrorType};
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::ExecuteData;

use ext_php_rs::convert::{FromZval, IntoZval};
use ext_php_rs::types::ZendClassObject;

use crate::engine::http::{RespContext, RespError, Responder};
use crate::engine::net::conns;
use crate::engine::proc::held;
use crate::engine::shared::session;
use crate::php::zval::bytes_zval;

/// Per-thread state of this file, one thread-local for all (static TLS is
/// a budget: tools/tls-check.sh).
struct RespState {
    /// Responses `detach()`ed in this worker, by connection, until
    /// `Response::create($fd)` picks one up. Boxed: the dlopen()ed
    /// extension has little static TLS room (tools/tls-check.sh).
    detached: std::cell::RefCell<std::collections::HashMap<i64, Responder>>,
    /// `send_yield` and `send_timeout`: what a send into a full output
    /// buffer does (see `overflow`).
    send_policy: std::cell::Cell<(bool, Option<std::time::Duration>)>,
}

thread_local! {
    static RESPSTATE: Box<RespState> = Box::new(RespState {
        detached: std::cell::RefCell::new(std::collections::HashMap::new()),
        send_policy: std::cell::Cell::new((false, None)),
    });
}

fn with_detached<R>(
    f: impl FnOnce(&std::cell::RefCell<std::collections::HashMap<i64, Responder>>) -> R,
) -> R {
    RESPSTATE.with(|s| f(&s.detached))
}

fn with_send_policy<R>(
    f: impl FnOnce(&std::cell::Cell<(bool, Option<std::time::Duration>)>) -> R,
) -> R {
    RESPSTATE.with(|s| f(&s.send_policy))
}

/// The worker that owns connection `fd` when it is another process than
/// this one (a task worker answering a request a worker detached).
fn remote_owner(fd: i64) -> Option<i32> {
    let owner = session::get(fd)?.worker;
    let me = crate::engine::worker::ctx::current_worker_id();
    (owner >= 0 && owner != me && (owner as usize) < crate::engine::ipc::worker_num().max(1))
        .then_some(owner)
}

/// `Response::create($fd)` for a connection of worker `owner`: a response
/// object here whose ended response travels to the owner (`ipc::Kind::Respond`),
/// which answers on the response it detached (`answer_remote`).
fn remote_response(fd: i64, owner: i32) -> Option<Zval> {
    let (r, head) = Responder::new(RespContext::plain(false));
    crate::engine::rt::event_loop::spawn(async move {
        let Ok(resp) = head.await else { return };
        let data = match encode_remote(resp).await {
            Ok(d) => d,
            Err(e) => {
                crate::rlog!(Warning, "response of session[{fd}]: {e}");
                return;
            }
        };
        let m = crate::engine::ipc::Msg {
            kind: crate::engine::ipc::Kind::Respond,
            flags: 0,
            src: crate::engine::worker::ctx::current_worker_id(),
            id: fd,
            arg: 0,
            data: Bytes::from(data),
        };
        if let Err(e) = crate::engine::ipc::send(owner as usize, m) {
            crate::rlog!(Warning, "response of session[{fd}] to worker#{owner}: {e}");
        }
    });
    ZendClassObject::new(Response::new(r, fd))
        .into_zval(false)
        .ok()
}

/// A response written as HTTP/1.1 bytes through `send()` on raw TCP
/// connection `fd` once it ends.
fn raw_responder(fd: i64) -> Responder {
    let (r, head) = Responder::new(RespContext::plain(false));
    crate::engine::rt::event_loop::spawn(async move {
        if let Ok(resp) = head.await {
            if let Ok(bytes) = held::http1_bytes(resp, false).await {
                conns::send(fd, Bytes::from(bytes));
            }
        }
    });
    r
}

/// Headers the answering worker sets itself (framing, connection, date).
fn owner_managed(name: &[u8], value: &[u8]) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_slice(),
        b"content-length" | b"transfer-encoding" | b"connection" | b"date"
    ) || (n == b"server" && value == b"swoole-http-server")
        || (n == b"content-type" && value == b"text/html")
}

/// A response as bytes for another process: status, reason, headers, body
/// (lengths in native order; both ends are the same build on one host).
async fn encode_remote(
    resp: http::Response<crate::engine::http::body::RespBody>,
) -> Result<Vec<u8>, String> {
    use http_body_util::BodyExt;
    let (parts, body) = resp.into_parts();
    let body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
    let reason = parts
        .extensions
        .get::<hyper::ext::ReasonPhrase>()
        .map(|r| r.as_bytes().to_vec())
        .unwrap_or_default();
    let mut out = Vec::with_capacity(64 + body.len());
    out.extend_from_slice(&parts.status.as_u16().to_ne_bytes());
    out.extend_from_slice(&(reason.len() as u32).to_ne_bytes());
    out.extend_from_slice(&reason);
    let headers: Vec<_> = parts
        .headers
        .iter()
        .filter(|(n, v)| !owner_managed(n.as_str().as_bytes(), v.as_bytes()))
        .collect();
    out.extend_from_slice(&(headers.len() as u32).to_ne_bytes());
    for (n, v) in headers {
        for part in [n.as_str().as_bytes(), v.as_bytes()] {
            out.extend_from_slice(&(part.len() as u32).to_ne_bytes());
            out.extend_from_slice(part);
        }
    }
    out.extend_from_slice(&body);
    Ok(out)
}

/// A response `encode_remote` wrote, read back in place.
struct RemoteResponse<'a> {
    status: u16,
    reason: &'a [u8],
    headers: Vec<(&'a [u8], &'a [u8])>,
    body: &'a [u8],
}

/// Reads what `encode_remote` wrote.
fn decode_remote(data: &[u8]) -> Option<RemoteResponse<'_>> {
    fn u32_at(d: &[u8], at: &mut usize) -> Option<usize> {
        let b: [u8; 4] = d.get(*at..*at + 4)?.try_into().ok()?;
        *at += 4;
        Some(u32::from_ne_bytes(b) as usize)
    }
    fn bytes_at<'a>(d: &'a [u8], at: &mut usize) -> Option<&'a [u8]> {
        let n = u32_at(d, at)?;
        let b = d.get(*at..*at + n)?;
        *at += n;
        Some(b)
    }
    let status = u16::from_ne_bytes(data.get(0..2)?.try_into().ok()?);
    let mut at = 2;
    let reason = bytes_at(data, &mut at)?;
    let count = u32_at(data, &mut at)?;
    let mut headers = Vec::with_capacity(count.min(256));
    for _ in 0..count {
        let n = bytes_at(data, &mut at)?;
        let v = bytes_at(data, &mut at)?;
        headers.push((n, v));
    }
    Some(RemoteResponse {
        status,
        reason,
        headers,
        body: data.get(at..)?,
    })
}

/// In the worker that owns `fd`: ends the response it detached for `fd`
/// with what another process made (`remote_response`).
pub fn answer_remote(fd: i64, data: &[u8]) {
    let r = match with_detached(|d| d.borrow_mut().remove(&fd)) {
        Some(r) => r,
        // A raw TCP connection of ours: HTTP bytes through `send()`.
        None if conns::port_of(fd).is_some() => raw_responder(fd),
        None => {
            crate::rlog!(
                Warning,
                "http response of session[{fd}] is not detached in this worker"
            );
            return;
        }
    };
    let Some(RemoteResponse {
        status,
        reason,
        headers,
        body,
    }) = decode_remote(data)
    else {
        r.fail(500);
        return;
    };
    let reason = std::str::from_utf8(reason).ok();
    let _ = r.status(i64::from(status), reason);
    for (n, v) in headers {
        let _ = r.header_bytes(n, v, false);
    }
    let _ = r.end(Bytes::copy_from_slice(body));
}

#[php_class]
#[php(name = "Swoole\\Http\\Response")]
pub struct Response {
    r: Responder,
    fd: i64,
}

impl Response {
    pub fn new(r: Responder, fd: i64) -> Self {
        Response { r, fd }
    }
}

/// A responder that refuses every call (what a detached object keeps).
fn spent_responder() -> Responder {
    let (r, _head) = Responder::new(RespContext::plain(false));
    r.fail(500);
    r
}

/// Swoole's warning (its spelling) for a WebSocket call on an HTTP response.
fn not_websocket(fd: i64) -> bool {
    php_error(
        &ErrorType::Warning,
        &format!("fd[{fd}] is not a websocket conncetion"),
    );
    false
}

fn warn(method: &str, err: &RespError) -> bool {
    let msg = match err {
        RespError::Unavailable => {
            "http response is unavailable (maybe it has been ended or detached)".to_string()
        }
        RespError::Invalid(m) | RespError::File(m) => m.clone(),
        RespError::NotRegularFile(m) => {
            super::errors::set_last_error(SWOOLE_ERROR_SERVER_IS_NOT_REGULAR_FILE);
            m.clone()
        }
        RespError::Overflow => "output buffer overflow".to_string(),
    };
    let _ = method;
    php_error(&ErrorType::Warning, &msg);
    false
}

/// `buffer_output_size` in PROCESS mode (Swoole checks it where a worker
/// hands a response to the master; BASE mode has no limit): `usize::MAX`
/// for none. Process-wide, not a thread-local: NTS PHP runs on one thread
/// per process, and `end()` reads it on every request (a thread-local of a
/// dlopen()ed library is a `__tls_get_addr` call).
static OUTPUT_LIMIT: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(usize::MAX);

/// This worker's output limit, if any.
fn output_limit() -> Option<usize> {
    let l = OUTPUT_LIMIT.load(std::sync::atomic::Ordering::Relaxed);
    (l != usize::MAX).then_some(l)
}

/// Sets this worker's output limit (`None`: none).
pub fn set_output_limit(limit: Option<usize>) {
    OUTPUT_LIMIT.store(
        limit.unwrap_or(usize::MAX),
        std::sync::atomic::Ordering::Relaxed,
    );
}

/// True (with Swoole's log line and last error) when `len` bytes exceed
/// `buffer_output_size`.
pub fn over_output_limit(len: usize) -> bool {
    let Some(limit) = output_limit() else {
        return false;
    };
    if len <= limit {
        return false;
    }
    super::errors::set_last_error(SWOOLE_ERROR_DATA_LENGTH_TOO_LARGE);
    crate::rlog!(
        Warning,
        "ProcessFactory::finish() (ERRNO {SWOOLE_ERROR_DATA_LENGTH_TOO_LARGE}): The length of data [{len}] exceeds the output buffer size[{limit}], please use the sendfile, chunked transfer mode or adjust the output_buffer_size"
    );
    true
}

/// Sets this worker's `send_yield` / `send_timeout`.
pub fn set_send_policy(send_yield: bool, timeout: Option<std::time::Duration>) {
    with_send_policy(|p| p.set((send_yield, timeout)));
}

const SWOOLE_ERROR_OUTPUT_BUFFER_OVERFLOW: i64 = 1009;

/// Swoole's answer to a send into a full output buffer of connection
/// `fd`. With `send_yield` (by default on when `enable_coroutine` is) and
/// a coroutine to suspend, it waits until the buffer has drained and
/// returns true: send again. It returns false when the wait ends without
/// room (`send_timeout`, or the connection closed), and outside a
/// coroutine or without `send_yield` at once, after Swoole's warning
/// `connection#N output buffer overflow` with
/// SWOOLE_ERROR_OUTPUT_BUFFER_OVERFLOW.
pub fn overflow(fd: i64, flow: Option<std::rc::Rc<crate::engine::net::outflow::Outflow>>) -> bool {
    let (send_yield, timeout) = with_send_policy(|p| p.get());
    if let Some(flow) = flow {
        if send_yield && crate::coro::current() >= 0 {
            if let Ok(true) = crate::coro::io::run(flow.wait_room(timeout)) {
                return true;
            }
            super::errors::set_last_error(SWOOLE_ERROR_OUTPUT_BUFFER_OVERFLOW);
            return false;
        }
    }
    super::errors::set_last_error(SWOOLE_ERROR_OUTPUT_BUFFER_OVERFLOW);
    crate::rlog!(
        Warning,
        "Server::send_to_connection() (ERRNO {SWOOLE_ERROR_OUTPUT_BUFFER_OVERFLOW}): connection#{fd} output buffer overflow"
    );
    false
}

const SWOOLE_ERROR_DATA_LENGTH_TOO_LARGE: i64 = 1203;
const SWOOLE_ERROR_SERVER_IS_NOT_REGULAR_FILE: i64 = 9013;

fn done(method: &str, r: Result<(), RespError>) -> bool {
    match r {
        Ok(()) => true,
        Err(e) => warn(method, &e),
    }
}

/// A scalar argument as bytes, as PHP's `string` coercion would give it.
/// A scalar argument's bytes without copying when it is already a string.
pub(crate) fn with_scalar_bytes<R>(z: &Zval, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    if let Some(s) = z.zend_str() {
        return Some(f(s.as_bytes()));
    }
    scalar_bytes(z).map(|v| f(&v))
}

pub(crate) fn scalar_bytes(z: &Zval) -> Option<Vec<u8>> {
    match z.get_type() {
        DataType::Null => Some(Vec::new()),
        DataType::String => z.zend_str().map(|s| s.as_bytes().to_vec()),
        DataType::Long => z.long().map(|n| n.to_string().into_bytes()),
        DataType::Double => z.double().map(|f| f.to_string().into_bytes()),
        DataType::True => Some(b"1".to_vec()),
        DataType::False => Some(Vec::new()),
        _ => None,
    }
}

impl Response {
    /// `cookie()` and its spellings: a `Swoole\Http\Cookie` object (its
    /// own `encode`), or a name and the attributes.
    #[allow(clippy::too_many_arguments)]
    fn put_cookie(
        &self,
        method: &str,
        encode: bool,
        name_or_object: &Zval,
        value: Option<&Zval>,
        expires: i64,
        path: &str,
        domain: &str,
        secure: bool,
        httponly: bool,
        samesite: &str,
        priority: &str,
        partitioned: bool,
    ) -> bool {
        use super::http_cookie::{Attrs, Cookie};
        let line = if let Some(c) = <&Cookie>::from_zval(name_or_object) {
            c.line()
        } else if let (Some(name), false) = (scalar_bytes(name_or_object), name_or_object.is_null())
        {
            let attrs = Attrs {
                name,
                value: value.and_then(scalar_bytes).unwrap_or_default(),
                path: path.as_bytes().to_vec(),
                domain: domain.as_bytes().to_vec(),
                same_site: samesite.as_bytes().to_vec(),
                priority: priority.as_bytes().to_vec(),
                encode,
                expires,
                secure,
                http_only: httponly,
                partitioned,
            };
            match attrs.to_line() {
                Ok(l) => Some(l),
                Err(msg) => {
                    php_error(&ErrorType::Warning, &msg);
                    None
                }
            }
        } else {
            php_error(
                &ErrorType::Warning,
                "The first argument must be a string or an cookie object",
            );
            None
        };
        match line {
            Some(l) => done(method, self.r.header("set-cookie", &l, false)),
            None => false,
        }
    }
}

#[php_impl]
impl Response {
    #[php(getter, name = "fd")]
    pub fn prop_fd(&self) -> i64 {
        self.fd
    }

    #[php(getter, name = "socket")]
    pub fn prop_socket(&self) -> Zval {
        Zval::new()
    }

    /// The headers set so far (name => value, or a list of values).
    #[php(getter, name = "header")]
    pub fn prop_header(&self) -> Zval {
        let snap = self.r.snapshot();
        if snap.headers.is_empty() {
            return Zval::new();
        }
        let mut ht = ZendHashTable::new();
        for (name, values) in &snap.headers {
            let name = String::from_utf8_lossy(name);
            let v = match values.as_slice() {
                [one] => bytes_zval(one),
                many => {
                    let mut list = ZendHashTable::new();
                    for v in many {
                        let _ = list.push(bytes_zval(v));
                    }
                    hashtable_zval(list)
                }
            };
            let _ = ht.insert(name.as_ref(), v);
        }
        hashtable_zval(ht)
    }

    /// The `Set-Cookie` lines set so far.
    #[php(getter, name = "cookie")]
    pub fn prop_cookie(&self) -> Zval {
        let snap = self.r.snapshot();
        if snap.cookies.is_empty() {
            return Zval::new();
        }
        let mut ht = ZendHashTable::new();
        for c in &snap.cookies {
            let _ = ht.push(bytes_zval(c));
        }
        hashtable_zval(ht)
    }

    /// The trailers set so far (name => value).
    #[php(getter, name = "trailer")]
    pub fn prop_trailer(&self) -> Zval {
        let snap = self.r.snapshot();
        if snap.trailers.is_empty() {
            return Zval::new();
        }
        let mut ht = ZendHashTable::new();
        for (name, v) in &snap.trailers {
            let _ = ht.insert(String::from_utf8_lossy(name).as_ref(), bytes_zval(v));
        }
        hashtable_zval(ht)
    }

    pub fn status(&self, http_code: i64, reason: Option<String>) -> bool {
        done("status", self.r.status(http_code, reason.as_deref()))
    }

    /// `Response::create($server, $fd)` or `create($fd)`: a response for
    /// connection `$fd` made outside its request. In a worker it is the
    /// response `detach()`ed for that connection, answered from any
    /// coroutine or timer. In the master of a SWOOLE_PROCESS server it
    /// answers on the master's own copy of the socket (`engine::proc::held`),
    /// also when the worker that read the request was killed (Laravel
    /// Octane's watchdog answers 408 so); the connection is closed after
    /// `end()`. In another process (a task worker) for a connection of some
    /// worker, the ended response travels to that worker, which answers on
    /// the response it detached (`remote_response`). Otherwise: false and a
    /// warning (docs/compat.md).
    pub fn create(server: Option<&Zval>, fd: Option<i64>) -> Zval {
        let mut out = Zval::new();
        out.set_bool(false);
        // `create($socket)` / `create([$socket, $request])` with a
        // `Coroutine\Socket` (a `Coroutine\Server` connection's): the
        // response is written on that socket once it ends.
        let first = server.map(|z| z.array().and_then(|a| a.get_index(0)).unwrap_or(z));
        if let Some(sock) = first.and_then(super::socket_coro::net_of) {
            if sock.tls_on() || sock.is_closed() {
                php_error(
                    &ErrorType::Warning,
                    "the socket is closed or speaks TLS (rswoole answers only on a plain Coroutine\\Socket)",
                );
                return out;
            }
            let fd = i64::from(sock.fd());
            let (r, head) = Responder::new(RespContext::plain(false));
            crate::engine::rt::event_loop::spawn(async move {
                if let Ok(resp) = head.await {
                    if let Ok(bytes) = held::http1_bytes(resp, false).await {
                        if let Some(send) = sock.send_all_detached(bytes) {
                            send.await;
                        }
                    }
                }
            });
            return ZendClassObject::new(Response::new(r, fd))
                .into_zval(false)
                .unwrap_or(out);
        }
        // `create("3")`: Swoole's `object|array|int` parameter takes a
        // numeric string as its number (weak mode).
        let numeric = |z: &Zval| {
            z.long()
                .or_else(|| z.str().and_then(|s| s.trim().parse::<i64>().ok()))
        };
        let fd = match server.and_then(numeric) {
            Some(n) => n,
            None => fd.unwrap_or(-1),
        };
        // `create([$server, $request], $fd)`: the request gets the fd too.
        if let Some(req) = server
            .and_then(Zval::array)
            .and_then(|a| a.get_index(1))
            .and_then(<&super::http_request::Request>::from_zval)
        {
            req.set_fd(fd);
        }
        let here = !held::active() && !with_detached(|d| d.borrow().contains_key(&fd));
        if here && conns::port_of(fd).is_none() {
            // Another worker's connection (a task worker answering what a
            // worker detached): the response travels to its owner.
            if let Some(owner) = remote_owner(fd) {
                return remote_response(fd, owner).unwrap_or(out);
            }
        }
        if here && conns::exists(fd) {
            // A raw TCP connection (`onReceive`): the response goes out
            // through `send()`; the connection stays open (as Swoole's).
            let r = raw_responder(fd);
            return match ZendClassObject::new(Response::new(r, fd)).into_zval(false) {
                Ok(z) => z,
                Err(_) => out,
            };
        }
        if !held::active() {
            let Some(r) = with_detached(|d| d.borrow_mut().remove(&fd)) else {
                php_error(
                    &ErrorType::Warning,
                    &format!(
                        "http response of session[{fd}] is not detached (rswoole creates a response in a worker only for a detached one)"
                    ),
                );
                return out;
            };
            return match ZendClassObject::new(Response::new(r, fd)).into_zval(false) {
                Ok(z) => z,
                Err(_) => out,
            };
        }
        let Some(sock) = session::get(fd).and_then(|s| held::take(s.port_index, s.peer)) else {
            php_error(&ErrorType::Warning, &format!("session[{fd}] is not exists"));
            return out;
        };
        let (r, head) = Responder::new(RespContext {
            is_head: false,
            keep_alive: false,
            coding: None,
            compression: None,
            compression_types: None,
            outflow: None,
            head_writer: false,
        });
        crate::engine::rt::event_loop::spawn(held::answer(head, sock, fd));
        match ZendClassObject::new(Response::new(r, fd)).into_zval(false) {
            Ok(z) => z,
            Err(_) => out,
        }
    }

    /// Leaves the response unanswered when the handler returns: this object
    /// refuses every call from now on, and `Response::create($fd)` in this
    /// worker gives the response back to answer later.
    pub fn detach(&mut self) -> bool {
        if !self.r.is_writable() {
            return false;
        }
        let r = std::mem::replace(&mut self.r, spent_responder());
        with_detached(|d| d.borrow_mut().insert(self.fd, r));
        true
    }

    /// Swoole 6.2.2 upgrades only a `Coroutine\Http\Server` response
    /// (`http_server_coro::ws_upgrade`); on an `Http\Server` it refuses,
    /// and so do we (a `WebSocket\Server` does the handshake itself).
    pub fn upgrade(&self) -> bool {
        if let Some(ok) = super::http_server_coro::ws_upgrade(self.fd, &self.r) {
            return ok;
        }
        php_error(
            &ErrorType::Warning,
            "async server dose not support protocol upgrade",
        );
        false
    }

    /// A frame to this response's connection when it is an established
    /// WebSocket connection; otherwise Swoole's warning and false.
    #[php(defaults(opcode = 1, flags = 1))]
    pub fn push(&self, data: &Zval, opcode: i64, flags: i64) -> bool {
        if !super::websocket_server::is_established(self.fd)
            && !super::http_server_coro::ws_is_upgraded(self.fd)
        {
            return not_websocket(self.fd);
        }
        super::websocket_server::push(self.fd, data, opcode, flags)
    }

    /// The next frame of an upgraded `Coroutine\Http\Server` connection
    /// (`http_server_coro::ws_recv`); as Swoole's async server otherwise:
    /// an HTTP response has no frames to read.
    #[php(defaults(timeout = 0.0))]
    pub fn recv(&self, timeout: f64) -> Zval {
        if let Some(z) = super::http_server_coro::ws_recv(self.fd, timeout) {
            return z;
        }
        let mut z = Zval::new();
        z.set_bool(not_websocket(self.fd));
        z
    }

    /// A PING frame: on an HTTP/2 connection an h2 PING, on an upgraded
    /// WebSocket a ping frame carrying `$data`.
    #[php(defaults(data = String::new()))]
    pub fn ping(&self, data: String) -> bool {
        if let Some(c) = crate::engine::http::h2ctl::get(self.fd) {
            if !self.r.is_writable() {
                return false;
            }
            c.ping();
            return true;
        }
        if !super::websocket_server::is_established(self.fd)
            && !super::http_server_coro::ws_is_upgraded(self.fd)
        {
            php_error(
                &ErrorType::Warning,
                "only supports websocket or http2 client",
            );
            return false;
        }
        let mut z = Zval::new();
        let _ = z.set_string(&data, false);
        super::websocket_server::push(self.fd, &z, 9, 1)
    }

    /// A close frame with `$code` and `$reason`, then the connection closes.
    #[php(defaults(code = 1000, reason = String::new()))]
    pub fn disconnect(&self, code: i64, reason: String) -> bool {
        if !super::websocket_server::is_established(self.fd)
            && !super::http_server_coro::ws_is_upgraded(self.fd)
        {
            return not_websocket(self.fd);
        }
        super::websocket_server::disconnect(self.fd, code, &reason)
    }

    /// Closes the connection; the response is not sent.
    pub fn close(&self) -> bool {
        let closed =
            crate::engine::http::conn::close(self.fd) || super::websocket_server::close(self.fd);
        if closed {
            // Nothing is written to a closed connection: `end()` now fails.
            self.r.fail(500);
        }
        closed
    }

    pub fn set_status_code(&self, http_code: i64, reason: Option<String>) -> bool {
        done("setStatusCode", self.r.status(http_code, reason.as_deref()))
    }

    /// hyper writes every header name in Title-Case; with `$format` false
    /// the name is sent as given (the connection rewrites it in the head).
    pub fn header(&self, key: &str, value: &Zval, format: Option<bool>) -> bool {
        let ok = self.add_header("header", key, value);
        if ok && format == Some(false) {
            self.r.exact_name(key.as_bytes());
        }
        ok
    }

    pub fn set_header(&self, key: &str, value: &Zval, format: Option<bool>) -> bool {
        let ok = self.add_header("setHeader", key, value);
        if ok && format == Some(false) {
            self.r.exact_name(key.as_bytes());
        }
        ok
    }

    #[allow(clippy::too_many_arguments)]
    pub fn cookie(
        &self,
        name_or_object: &Zval,
        value: Option<&Zval>,
        expires: Option<i64>,
        path: Option<String>,
        domain: Option<String>,
        secure: Option<bool>,
        httponly: Option<bool>,
        samesite: Option<String>,
        priority: Option<String>,
        partitioned: Option<bool>,
    ) -> bool {
        self.put_cookie(
            "cookie",
            true,
            name_or_object,
            value,
            expires.unwrap_or(0),
            path.as_deref().unwrap_or(""),
            domain.as_deref().unwrap_or(""),
            secure.unwrap_or(false),
            httponly.unwrap_or(false),
            samesite.as_deref().unwrap_or(""),
            priority.as_deref().unwrap_or(""),
            partitioned.unwrap_or(false),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn set_cookie(
        &self,
        name_or_object: &Zval,
        value: Option<&Zval>,
        expires: Option<i64>,
        path: Option<String>,
        domain: Option<String>,
        secure: Option<bool>,
        httponly: Option<bool>,
        samesite: Option<String>,
        priority: Option<String>,
        partitioned: Option<bool>,
    ) -> bool {
        self.put_cookie(
            "setCookie",
            true,
            name_or_object,
            value,
            expires.unwrap_or(0),
            path.as_deref().unwrap_or(""),
            domain.as_deref().unwrap_or(""),
            secure.unwrap_or(false),
            httponly.unwrap_or(false),
            samesite.as_deref().unwrap_or(""),
            priority.as_deref().unwrap_or(""),
            partitioned.unwrap_or(false),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn rawcookie(
        &self,
        name_or_object: &Zval,
        value: Option<&Zval>,
        expires: Option<i64>,
        path: Option<String>,
        domain: Option<String>,
        secure: Option<bool>,
        httponly: Option<bool>,
        samesite: Option<String>,
        priority: Option<String>,
        partitioned: Option<bool>,
    ) -> bool {
        self.put_cookie(
            "rawcookie",
            false,
            name_or_object,
            value,
            expires.unwrap_or(0),
            path.as_deref().unwrap_or(""),
            domain.as_deref().unwrap_or(""),
            secure.unwrap_or(false),
            httponly.unwrap_or(false),
            samesite.as_deref().unwrap_or(""),
            priority.as_deref().unwrap_or(""),
            partitioned.unwrap_or(false),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn set_raw_cookie(
        &self,
        name_or_object: &Zval,
        value: Option<&Zval>,
        expires: Option<i64>,
        path: Option<String>,
        domain: Option<String>,
        secure: Option<bool>,
        httponly: Option<bool>,
        samesite: Option<String>,
        priority: Option<String>,
        partitioned: Option<bool>,
    ) -> bool {
        self.put_cookie(
            "setRawCookie",
            false,
            name_or_object,
            value,
            expires.unwrap_or(0),
            path.as_deref().unwrap_or(""),
            domain.as_deref().unwrap_or(""),
            secure.unwrap_or(false),
            httponly.unwrap_or(false),
            samesite.as_deref().unwrap_or(""),
            priority.as_deref().unwrap_or(""),
            partitioned.unwrap_or(false),
        )
    }

    /// Sends a chunk (`Transfer-Encoding: chunked`).
    pub fn write(&self, content: &Zval) -> bool {
        let Some(data) = scalar_bytes(content) else {
            return warn(
                "write",
                &RespError::Invalid("the data sent must be a string".into()),
            );
        };
        if data.is_empty() {
            php_error(&ErrorType::Warning, "the data sent must not be empty");
            return false;
        }
        if over_output_limit(data.len()) {
            return false;
        }
        let data = Bytes::from(data);
        loop {
            match self.r.write(data.clone()) {
                Err(RespError::Overflow) => {
                    if !overflow(self.fd, self.r.outflow()) {
                        return false;
                    }
                }
                r => return done("write", r),
            }
        }
    }

    /// Sends the response (or the last chunk) and ends it.
    pub fn end(&self, content: Option<&Zval>) -> bool {
        let data = match content {
            None => Bytes::new(),
            Some(z) => match with_scalar_bytes(z, Bytes::copy_from_slice) {
                Some(d) => d,
                None => {
                    return warn(
                        "end",
                        &RespError::Invalid("the data sent must be a string".into()),
                    )
                }
            },
        };
        if over_output_limit(data.len()) {
            // As Swoole, whose failed send ends the response and closes the
            // connection: the client gets no answer.
            conns::close(self.fd, false);
            self.r.fail(500);
            return false;
        }
        done("end", self.r.end(data))
    }

    #[php(defaults(offset = 0, length = 0))]
    pub fn sendfile(&self, filename: String, offset: i64, length: i64) -> bool {
        if offset < 0 || length < 0 {
            return warn(
                "sendfile",
                &RespError::Invalid("offset and length must not be negative".into()),
            );
        }
        done(
            "sendfile",
            self.r.sendfile(
                std::path::Path::new(&filename),
                offset as u64,
                length as u64,
            ),
        )
    }

    #[php(defaults(http_code = 302))]
    pub fn redirect(&self, location: String, http_code: i64) -> bool {
        done("redirect", self.r.status(http_code, None))
            && done(
                "redirect",
                self.r.header("location", location.as_bytes(), true),
            )
            && done("redirect", self.r.end(Bytes::new()))
    }

    pub fn is_writable(&self) -> bool {
        self.r.is_writable()
    }

    /// A trailer sent after the body (HTTP/2; HTTP/1 drops it).
    pub fn trailer(&self, key: &str, value: &str) -> bool {
        if key.len() > 127 {
            php_error(&ErrorType::Warning, "trailer key is too long");
            return false;
        }
        done("trailer", self.r.trailer(key, value.as_bytes()))
    }

    /// Sends a GOAWAY frame on this response's HTTP/2 connection.
    #[php(defaults(error_code = 0))]
    pub fn goaway(&self, error_code: i64, debug_data: Option<String>) -> bool {
        match crate::engine::http::h2ctl::get(self.fd) {
            Some(c) => {
                let debug = debug_data.unwrap_or_default();
                c.goaway(
                    error_code.clamp(0, u32::MAX as i64) as u32,
                    debug.as_bytes(),
                );
                true
            }
            None => {
                php_error(
                    &ErrorType::Warning,
                    &format!("fd[{}] is not a HTTP2 conncetion", self.fd),
                );
                false
            }
        }
    }
}

impl Response {
    fn add_header(&self, method: &str, name: &str, value: &Zval) -> bool {
        if name.len() > 127 {
            php_error(&ErrorType::Warning, "header key is too long");
            return false;
        }
        // As Swoole: a null value unsets the header.
        if value.is_null() {
            return done(method, self.r.remove_header(name.as_bytes()));
        }
        if let Some(arr) = value.array() {
            let mut first = true;
            for (_, v) in arr.iter() {
                if v.is_null() {
                    continue;
                }
                let Some(b) = scalar_bytes(v) else { continue };
                // As Swoole: trailing white space goes; a value still holding
                // a line break is left out.
                let b = rtrim_ws(&b);
                if b.iter().any(|c| *c == b'\r' || *c == b'\n') {
                    continue;
                }
                if !done(method, self.r.header(name, b, first)) {
                    return false;
                }
                first = false;
            }
            return true;
        }
        match with_scalar_bytes(value, |b| self.r.header(name, b, true)) {
            Some(r) => done(method, r),
            None => warn(
                method,
                &RespError::Invalid(format!("invalid value for header '{name}'")),
            ),
        }
    }
}

/// `b` without trailing ASCII white space (CR and LF included).
fn hashtable_zval(ht: ext_php_rs::boxed::ZBox<ZendHashTable>) -> Zval {
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

fn rtrim_ws(b: &[u8]) -> &[u8] {
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    &b[..end]
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Response>()
}

// Fast paths for `header()` and `end()`, the two methods every request
// calls. ext-php-rs wraps each method call in a `zend_try` (a `setjmp`),
// a panic guard and its bailout bookkeeping: about a third of what a
// `header('Name', 'value')` call costs. The common case, string
// arguments on a response that accepts them, never calls back into PHP (no
// warning, no user error handler), so nothing can bail out under it and it
// needs no `zend_try`. `install_fast_paths` puts these handlers in front of
// the generated ones at startup; every other case (other argument types or
// counts, an invalid header, an ended response: anything that warns or
// throws) is handed to the generated handler unchanged, so it behaves
// exactly as before, warnings, exceptions and bailouts included.

type ZifHandler = unsafe extern "C" fn(*mut ext_php_rs::ffi::zend_execute_data, *mut Zval);

/// The generated handlers, kept as the slow path.
static GENERATED_HEADER: std::sync::OnceLock<ZifHandler> = std::sync::OnceLock::new();
static GENERATED_END: std::sync::OnceLock<ZifHandler> = std::sync::OnceLock::new();

/// The `Response` a method call is on: `ExecuteData::get_object` without
/// its `instanceof` (a call into PHP), which cannot fail here: `$this` of
/// a method of this class is an instance of it. An object with this
/// class's handlers was made by its `create_object`: it is the `std` part
/// of a `ZendClassObject<Response>` (a subclass's object too).
fn this_response(ex: &mut ExecuteData) -> Option<&Response> {
    use ext_php_rs::class::RegisteredClass;
    use ext_php_rs::types::ZendClassObject;
    let obj = ex.This.object_mut()?;
    let handlers = <Response as RegisteredClass>::get_metadata().handlers();
    if !std::ptr::eq(obj.handlers, handlers) {
        return None;
    }
    let at = std::mem::offset_of!(ZendClassObject<Response>, std);
    // SAFETY: see above: `obj` is the `std` field of a live
    // `ZendClassObject<Response>` (`#[repr(C)]`), `at` bytes into it; the
    // object lives for the call.
    let this = unsafe {
        &*std::ptr::from_mut(obj)
            .cast::<u8>()
            .sub(at)
            .cast::<ZendClassObject<Response>>()
    };
    this.obj.as_ref()
}

/// `$response->header($key, $value[, $format])` with a string key and value:
/// true when the header was set; false when the generated handler must run.
fn header_fast(ex: &mut ExecuteData) -> bool {
    // SAFETY: `This` of a method call frame holds the argument count in u2.
    let argc = unsafe { ex.This.u2.num_args };
    if !(2..=3).contains(&argc) {
        return false;
    }
    // SAFETY: both arguments exist (argc >= 2) and live for the call.
    let (Some(key), Some(value)) = (unsafe { ex.zend_call_arg(0) }, unsafe {
        ex.zend_call_arg(1)
    }) else {
        return false;
    };
    let (Some(key), Some(value)) = (key.dereference().zend_str(), value.dereference().zend_str())
    else {
        return false;
    };
    // `$format` false (the name as given) takes the generated handler.
    if argc == 3 {
        // SAFETY: the third argument exists (argc == 3) and lives for the call.
        let f = unsafe { ex.zend_call_arg(2) };
        if f.is_some_and(|f| f.dereference().is_false()) {
            return false;
        }
    }
    // The key is not checked for UTF-8 (the generated handler's `&str`
    // does): a name that is not is not ASCII either, so it is refused below
    // and the generated handler reports it as before.
    let name = key.as_bytes();
    if name.len() > 127 {
        return false;
    }
    let Some(this) = this_response(ex) else {
        return false;
    };
    this.r.header_bytes(name, value.as_bytes(), true).is_ok()
}

/// `$response->end()` or `end($string)`: true when the response was sent.
/// A refused `end()` changes nothing the generated handler's second attempt
/// could see differently: it fails the same way and warns.
fn end_fast(ex: &mut ExecuteData) -> bool {
    // SAFETY: as in `header_fast`.
    let argc = unsafe { ex.This.u2.num_args };
    let data: &[u8] = match argc {
        0 => b"",
        1 => {
            // SAFETY: the argument exists (argc == 1) and lives for the call.
            let Some(z) = (unsafe { ex.zend_call_arg(0) }) else {
                return false;
            };
            let Some(s) = z.dereference().zend_str() else {
                return false;
            };
            s.as_bytes()
        }
        _ => return false,
    };
    if output_limit().is_some_and(|l| data.len() > l) {
        // The generated handler refuses it with the log line and the error.
        return false;
    }
    let Some(this) = this_response(ex) else {
        return false;
    };
    this.r.end_slice(data).is_ok()
}

/// Runs `fast`; when it declines (or panics), the generated handler.
///
/// # Safety
/// `ex` and `retval` are the call frame and return slot PHP passes to an
/// internal method handler.
unsafe fn dispatch(
    ex: *mut ext_php_rs::ffi::zend_execute_data,
    retval: *mut Zval,
    fast: fn(&mut ExecuteData) -> bool,
    generated: &std::sync::OnceLock<ZifHandler>,
) {
    // SAFETY: PHP passes a live frame and return slot (see above).
    let (Some(frame), Some(ret)) = (unsafe { ex.as_mut() }, unsafe { retval.as_mut() }) else {
        return;
    };
    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fast(frame)));
    if matches!(done, Ok(true)) {
        // (`RETURN_TRUE`: PHP hands an internal function a null return
        // slot, nothing to release.)
        ret.u1.type_info = ext_php_rs::ffi::IS_TRUE;
        return;
    }
    if let Some(h) = generated.get() {
        // SAFETY: the generated handler of this very method, same frame.
        unsafe { h(ex, retval) };
    }
}

// may_bail: yes, the generated handler may raise a user error.
crate::php::ffi::php_fn!(throw unsafe fn header_handler(ex: *mut ext_php_rs::ffi::zend_execute_data, retval: *mut Zval) => header_handler_body);
unsafe fn header_handler_body(ex: *mut ext_php_rs::ffi::zend_execute_data, retval: *mut Zval) {
    // SAFETY: called by PHP as this method's handler.
    unsafe { dispatch(ex, retval, header_fast, &GENERATED_HEADER) }
}

// may_bail: yes, the generated handler may raise a user error.
crate::php::ffi::php_fn!(throw unsafe fn end_handler(ex: *mut ext_php_rs::ffi::zend_execute_data, retval: *mut Zval) => end_handler_body);
unsafe fn end_handler_body(ex: *mut ext_php_rs::ffi::zend_execute_data, retval: *mut Zval) {
    // SAFETY: called by PHP as this method's handler.
    unsafe { dispatch(ex, retval, end_fast, &GENERATED_END) }
}

/// Puts the fast handlers in front of the generated `header` and `end`
/// (module startup, after the class is registered). The methods' names,
/// order, argument info and reflection stay the generated ones.
pub fn install_fast_paths() {
    let ce = <Response as ext_php_rs::class::RegisteredClass>::get_metadata().ce();
    for (name, handler, slot) in [
        ("header", header_handler as ZifHandler, &GENERATED_HEADER),
        ("end", end_handler as ZifHandler, &GENERATED_END),
    ] {
        // SAFETY: MINIT, single-threaded; the class's function table holds
        // IS_PTR zvals to its `zend_function`s (internal functions, as the
        // class is ours), which live as long as the class. Only the handler
        // pointer is replaced, and only once the original is saved.
        unsafe {
            let found = ext_php_rs::ffi::zend_hash_str_find(
                &ce.function_table,
                name.as_ptr().cast(),
                name.len(),
            );
            if found.is_null() {
                continue;
            }
            let func: *mut ext_php_rs::ffi::zend_function = (*found).value.ptr.cast();
            if func.is_null() || (*func).type_ != ext_php_rs::ffi::ZEND_INTERNAL_FUNCTION as u8 {
                continue;
            }
            let Some(orig) = (*func).internal_function.handler else {
                continue;
            };
            if slot.set(orig).is_ok() {
                (*func).internal_function.handler = Some(handler);
            }
        }
    }
}
