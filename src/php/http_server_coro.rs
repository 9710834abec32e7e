//! `Swoole\Coroutine\Http\Server` (`Co\Http\Server`): an HTTP server in the
//! script's own process, under `Co\run()`. The constructor binds and
//! listens; `start()` suspends the calling coroutine while the engine's
//! HTTP/1 code (`engine::http::coro`, `engine::http::conn`) serves each
//! connection on the current loop, and every request runs its handler in a
//! new coroutine with the same `Swoole\Http\Request`/`Response` objects as
//! `Swoole\Http\Server` gives.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use bytes::Bytes;
use tokio::sync::Notify;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::class::RegisteredClass;
use ext_php_rs::exception::{PhpException, PhpResult};
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, ZendObject, Zval};

use super::coroutine::{self, Job};
use super::http_client_coro::Mixed;
use super::http_request::{ParseOptions, Request};
use super::http_response::Response;
use crate::engine::hooks::{Hooks, Outcome};
use crate::engine::http::coro::{BindStep, Stop};
use crate::engine::http::{HttpRequest, Responder};
use crate::engine::worker::WorkerCtx;

const CLASS: &str = "Swoole\\Coroutine\\Http\\Server";

/// Handlers by pattern, shared by the object and its running server.
type Routes = Rc<RefCell<Vec<(String, Zval)>>>;

struct Inner {
    listener: Option<std::net::TcpListener>,
    host: String,
    port: i64,
    fd: i64,
    ssl: bool,
    settings: Option<Zval>,
    err_code: i64,
    err_msg: String,
}

#[php_class]
#[php(name = "Swoole\\Coroutine\\Http\\Server")]
pub struct Server {
    inner: RefCell<Inner>,
    routes: Routes,
    stop: Rc<Stop>,
}

/// The engine's hooks for one running server: route, then run the handler
/// in a coroutine.
struct CoHooks {
    routes: Routes,
    parse: Rc<ParseOptions>,
}

/// A WebSocket upgrade request whose handler runs now: `upgrade()` answers
/// it with our 101, then `recv()` takes the frames the engine delivers.
struct WsConn {
    key: Vec<u8>,
    upgraded: bool,
    frames: VecDeque<(Bytes, u8, u8)>,
    closed: bool,
    notify: Rc<Notify>,
}

thread_local! {
    /// The coroutine servers' WebSocket connections, by connection id.
    static WS: Box<RefCell<HashMap<i64, WsConn>>> = Box::new(RefCell::new(HashMap::new()));
}

/// `Response::upgrade()` for a coroutine server's upgrade request `fd`:
/// sends the 101 (with the headers and cookies set so far). `None` when
/// `fd` is not one (the caller keeps its own behaviour).
pub fn ws_upgrade(fd: i64, r: &Responder) -> Option<bool> {
    let key = WS.with(|w| {
        let mut w = w.borrow_mut();
        let c = w.get_mut(&fd)?;
        if c.upgraded {
            return Some(None);
        }
        c.upgraded = true;
        Some(Some(c.key.clone()))
    })?;
    let Some(key) = key else {
        return Some(true);
    };
    let accept = crate::engine::ws::accept_key(&key);
    let ok = r.status(101, None).is_ok()
        && r.header("Upgrade", b"websocket", true).is_ok()
        && r.header("Connection", b"Upgrade", true).is_ok()
        && r.header("Sec-WebSocket-Accept", accept.as_bytes(), true)
            .is_ok()
        && r.header("Sec-WebSocket-Version", b"13", true).is_ok()
        && r.end(Bytes::new()).is_ok();
    Some(ok)
}

/// `Response::recv($timeout)` on an upgraded coroutine-server connection:
/// the next frame (`Swoole\WebSocket\Frame`, or `CloseFrame`), `""` once
/// the connection is closed, false when `$timeout` (> 0) runs out. `None`
/// when `fd` is not such a connection.
pub fn ws_recv(fd: i64, timeout: f64) -> Option<Zval> {
    let deadline = (timeout > 0.0 && timeout.is_finite())
        .then(|| std::time::Instant::now() + std::time::Duration::from_secs_f64(timeout));
    loop {
        enum Next {
            Frame(Bytes, u8, u8),
            Closed,
            Wait(Rc<Notify>),
        }
        let next = WS.with(|w| {
            let mut w = w.borrow_mut();
            let c = w.get_mut(&fd).filter(|c| c.upgraded)?;
            Some(match c.frames.pop_front() {
                Some((d, op, fl)) => Next::Frame(d, op, fl),
                None if c.closed => Next::Closed,
                None => Next::Wait(c.notify.clone()),
            })
        })?;
        match next {
            Next::Frame(data, opcode, flags) => {
                let obj: ZBox<ZendObject> = if opcode == 8 {
                    ZendClassObject::new(super::websocket_frame::CloseFrame::message(
                        fd, &data, flags,
                    ))
                    .into()
                } else {
                    ZendClassObject::new(super::websocket_frame::Frame::message(
                        fd, &data, opcode, flags,
                    ))
                    .into()
                };
                return Some(object_zval(obj));
            }
            Next::Closed => {
                let mut z = Zval::new();
                let _ = z.set_string("", false);
                return Some(z);
            }
            Next::Wait(n) => {
                let woke = crate::coro::io::run(async move {
                    match deadline {
                        Some(d) => tokio::time::timeout_at(d.into(), n.notified())
                            .await
                            .is_ok(),
                        None => {
                            n.notified().await;
                            true
                        }
                    }
                });
                if !matches!(woke, Ok(true)) {
                    super::errors::set_last_error(libc::ETIMEDOUT as i64);
                    let mut z = Zval::new();
                    z.set_bool(false);
                    return Some(z);
                }
            }
        }
    }
}

/// True when `fd` is a coroutine server's connection whose handler called
/// `upgrade()` (its frames queue even before the engine has the 101 out).
pub fn ws_is_upgraded(fd: i64) -> bool {
    WS.with(|w| w.borrow().get(&fd).is_some_and(|c| c.upgraded))
}

/// A frame or the end of connection `fd`, for its `recv()`.
fn ws_deliver(fd: i64, frame: Option<(Bytes, u8, u8)>) {
    WS.with(|w| {
        if let Some(c) = w.borrow_mut().get_mut(&fd) {
            match frame {
                Some(f) => c.frames.push_back(f),
                None => c.closed = true,
            }
            c.notify.notify_one();
        }
    });
}

impl CoHooks {
    /// The handler whose pattern is the longest case-insensitive prefix of
    /// `path`; "/" is the fallback.
    fn route(&self, path: &str) -> Option<Zval> {
        let routes = self.routes.borrow();
        let mut best: Option<&(String, Zval)> = None;
        for r in routes.iter() {
            if r.0 == "/" {
                continue;
            }
            let p = r.0.as_bytes();
            let matches =
                path.len() >= p.len() && path.as_bytes()[..p.len()].eq_ignore_ascii_case(p);
            if matches && best.is_none_or(|b| b.0.len() < p.len()) {
                best = Some(r);
            }
        }
        best.or_else(|| routes.iter().find(|r| r.0 == "/"))
            .map(|r| r.1.shallow_clone())
    }
}

fn object_zval(obj: ZBox<ZendObject>) -> Zval {
    let mut z = Zval::new();
    // Moves the box's one reference into the zval.
    let _ = ext_php_rs::convert::IntoZval::set_zval(obj, &mut z, false);
    z
}

impl Hooks for CoHooks {
    /// An upgrade request: the handler runs as for any request; its
    /// `upgrade()` answers the handshake. When the handler returns, the
    /// connection closes (the handler owned it, as in Swoole).
    fn on_ws_handshake(&self, req: HttpRequest, resp: Responder) -> Outcome {
        let Some(cb) = self.route(req.uri.path()) else {
            resp.fail(404);
            return Outcome::Done;
        };
        let fd = req.fd;
        let key = req
            .headers
            .get("sec-websocket-key")
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        WS.with(|w| {
            w.borrow_mut().insert(
                fd,
                WsConn {
                    key,
                    upgraded: false,
                    frames: VecDeque::new(),
                    closed: false,
                    notify: Rc::new(Notify::new()),
                },
            )
        });
        let req_obj: ZBox<ZendObject> =
            ZendClassObject::new(Request::new(req, self.parse.clone())).into();
        let resp_obj: ZBox<ZendObject> =
            ZendClassObject::new(Response::new(resp.clone(), fd)).into();
        let job = Job {
            callable: cb,
            args: vec![object_zval(req_obj), object_zval(resp_obj)],
            done: Some(Box::new(move |result| {
                let upgraded = WS
                    .with(|w| w.borrow_mut().remove(&fd))
                    .is_some_and(|c| c.upgraded);
                if upgraded {
                    crate::engine::ws::close(fd);
                } else if result.is_err() || resp.is_writable() {
                    resp.fail(if result.is_err() { 500 } else { 400 });
                }
            })),
        };
        if let Err(e) = coroutine::spawn(job) {
            crate::rlog!(
                Warning,
                "{CLASS}: cannot start a coroutine for a request: {e:?}"
            );
        }
        Outcome::Done
    }

    fn on_ws_message(&self, fd: i64, data: Bytes, opcode: u8, flags: u8) -> Outcome {
        ws_deliver(fd, Some((data, opcode, flags)));
        Outcome::Done
    }

    fn on_close(&self, fd: i64, _reactor_id: i32, _port: usize) -> Outcome {
        ws_deliver(fd, None);
        Outcome::Done
    }

    fn on_disconnect(&self, fd: i64, _reactor_id: i32) -> Outcome {
        ws_deliver(fd, None);
        Outcome::Done
    }

    fn on_request(&self, req: HttpRequest, resp: Responder) -> Outcome {
        let Some(cb) = self.route(req.uri.path()) else {
            resp.fail(404);
            return Outcome::Done;
        };
        let fd = req.fd;
        let req_obj: ZBox<ZendObject> =
            ZendClassObject::new(Request::new(req, self.parse.clone())).into();
        let resp_obj: ZBox<ZendObject> =
            ZendClassObject::new(Response::new(resp.clone(), fd)).into();
        let job = Job {
            callable: cb,
            args: vec![object_zval(req_obj), object_zval(resp_obj)],
            done: Some(Box::new(move |result| {
                if result.is_err() {
                    resp.fail(500);
                }
            })),
        };
        if let Err(e) = coroutine::spawn(job) {
            crate::rlog!(
                Warning,
                "{CLASS}: cannot start a coroutine for a request: {e:?}"
            );
        }
        Outcome::Done
    }
}

fn exception(msg: &str, code: i32) -> PhpException {
    super::exception::swoole_exception(msg, code)
}

#[php_impl]
impl Server {
    #[php(defaults(port = 0, ssl = false, reuse_port = false))]
    pub fn __construct(host: String, port: i64, ssl: bool, reuse_port: bool) -> PhpResult<Self> {
        if host.is_empty() {
            return Err(exception("host is empty", libc::EINVAL));
        }
        let bind_port = u16::try_from(port).unwrap_or(0);
        match crate::engine::http::coro::bind(
            &host,
            bind_port,
            reuse_port,
            crate::engine::net::listener::DEFAULT_BACKLOG,
        ) {
            Ok(l) => {
                use std::os::fd::AsRawFd;
                let fd = l.as_raw_fd() as i64;
                let actual = l.local_addr().map(|a| a.port() as i64).unwrap_or(port);
                Ok(Server {
                    inner: RefCell::new(Inner {
                        listener: Some(l),
                        host,
                        port: actual,
                        fd,
                        ssl,
                        settings: None,
                        err_code: 0,
                        err_msg: String::new(),
                    }),
                    routes: Rc::new(RefCell::new(Vec::new())),
                    stop: Rc::new(Stop::default()),
                })
            }
            Err((step, e)) => {
                let code = e.raw_os_error().unwrap_or(libc::EADDRINUSE);
                let what = match step {
                    BindStep::Listen => "listen() failed".to_string(),
                    BindStep::Bind => format!("bind({host}:{port}) failed"),
                };
                Err(exception(&what, code))
            }
        }
    }

    /// Merges `$settings` into `settings` (false for an empty array).
    pub fn set(&self, settings: &ZendHashTable) -> bool {
        if settings.is_empty() {
            return false;
        }
        let mut inner = self.inner.borrow_mut();
        let mut merged = inner
            .settings
            .as_ref()
            .and_then(|z| z.array().map(|a| a.to_owned()))
            .unwrap_or_default();
        for (k, v) in settings.iter() {
            let v = v.shallow_clone();
            let _ = match k {
                ext_php_rs::types::ArrayKey::Long(_) => merged.push(v),
                other => merged.insert(other.to_string().as_str(), v),
            };
        }
        let mut z = Zval::new();
        z.set_hashtable(merged);
        inner.settings = Some(z);
        true
    }

    /// Registers `$callback` for paths starting with `$pattern`.
    pub fn handle(&self, pattern: String, callback: &Zval) -> PhpResult<bool> {
        if !callback.is_callable() {
            return Err(PhpException::from(format!(
                "function '{}' is not callable",
                callback.str().unwrap_or("")
            )));
        }
        let mut routes = self.routes.borrow_mut();
        routes.retain(|r| r.0 != pattern);
        routes.push((pattern, callback.shallow_clone()));
        Ok(true)
    }

    /// Serves until `shutdown()`; the calling coroutine waits meanwhile.
    pub fn start(&self) -> PhpResult<bool> {
        super::errors::need_coroutine()?;
        let (listener, settings, ssl) = {
            let inner = self.inner.borrow();
            let Some(l) = inner.listener.as_ref().and_then(|l| l.try_clone().ok()) else {
                return Ok(false);
            };
            (
                l,
                inner.settings.as_ref().map(Zval::shallow_clone),
                inner.ssl,
            )
        };
        let arr = settings.as_ref().and_then(Zval::array);
        // HTTP/2 is always on here, as in Swoole's coroutine server (a client
        // starting with the HTTP/2 preface, or choosing h2 by ALPN, gets it).
        let http2 = super::settings::port_options(CLASS, arr)?
            .http2
            .or_else(|| Some(Default::default()));
        let tls = if ssl {
            let mut t = super::settings::tls_settings(CLASS, arr)?;
            t.alpn_http1 = true;
            t.alpn_h2 = http2.is_some();
            let (tls, warnings) =
                crate::engine::tls::build(&t).map_err(|e| exception(&e.to_string(), 1019))?;
            for w in warnings {
                crate::rlog!(Warning, "{CLASS}::start(): {w}");
            }
            Some(std::sync::Arc::new(tls))
        } else {
            None
        };
        let proto = crate::engine::http::coro::Protocols { tls, http2 };
        let mut cfg =
            super::settings::to_config(CLASS, settings.as_ref().and_then(Zval::array), false)
                .unwrap_or_default();
        // Every upgrade request goes to its handler, which answers it with
        // `upgrade()` (the engine's custom-handshake path); the settings'
        // `websocket_compression` and `open_websocket_*_frame` apply.
        cfg.ws.enabled = true;
        cfg.ws.custom_handshake = true;
        let parse = Rc::new(ParseOptions {
            parse_post: cfg.http_parse_post,
            parse_files: cfg.http_parse_files,
            parse_cookie: cfg.http_parse_cookie,
            upload_tmp_dir: cfg.upload_tmp_dir.clone(),
        });
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let hooks: Rc<dyn Hooks> = Rc::new(CoHooks {
            routes: self.routes.clone(),
            parse,
        });
        let ctx = WorkerCtx::standalone(Rc::new(cfg), hooks, port);
        self.stop.reset();
        let stop = self.stop.clone();
        let result = crate::coro::io::run(async move {
            crate::engine::http::coro::serve(&listener, ctx, stop, proto).await
        });
        match result {
            Ok(Ok(())) => Ok(true),
            Ok(Err(e)) => {
                let mut inner = self.inner.borrow_mut();
                inner.err_code = e.raw_os_error().unwrap_or(libc::EIO) as i64;
                inner.err_msg = e.to_string();
                Ok(true)
            }
            Err(_) => Ok(true),
        }
    }

    /// Makes `start()` return; open connections finish their request.
    pub fn shutdown(&self) {
        // As in Swoole the listening socket stays open until the object
        // goes: a connection made now waits in the backlog, unserved.
        self.stop.stop();
    }

    #[php(getter)]
    pub fn fd(&self) -> i64 {
        self.inner.borrow().fd
    }

    #[php(setter, name = "fd")]
    pub fn set_fd(&self, v: i64) {
        self.inner.borrow_mut().fd = v;
    }

    #[php(getter)]
    pub fn host(&self) -> String {
        self.inner.borrow().host.clone()
    }

    #[php(setter, name = "host")]
    pub fn set_host(&self, v: String) {
        self.inner.borrow_mut().host = v;
    }

    #[php(getter)]
    pub fn port(&self) -> i64 {
        self.inner.borrow().port
    }

    #[php(setter, name = "port")]
    pub fn set_port(&self, v: i64) {
        self.inner.borrow_mut().port = v;
    }

    #[php(getter)]
    pub fn ssl(&self) -> bool {
        self.inner.borrow().ssl
    }

    #[php(setter, name = "ssl")]
    pub fn set_ssl(&self, v: bool) {
        self.inner.borrow_mut().ssl = v;
    }

    #[php(getter)]
    pub fn settings(&self) -> Mixed {
        Mixed(
            self.inner
                .borrow()
                .settings
                .as_ref()
                .map(Zval::shallow_clone)
                .unwrap_or_default(),
        )
    }

    #[php(setter, name = "settings")]
    pub fn set_settings(&self, v: Mixed) {
        let v = if v.0.is_null() { None } else { Some(v.0) };
        let old = std::mem::replace(&mut self.inner.borrow_mut().settings, v);
        drop(old);
    }

    #[php(getter, name = "errCode")]
    pub fn err_code(&self) -> i64 {
        self.inner.borrow().err_code
    }

    #[php(setter, name = "errCode")]
    pub fn set_err_code(&self, v: i64) {
        self.inner.borrow_mut().err_code = v;
    }

    #[php(getter, name = "errMsg")]
    pub fn err_msg(&self) -> String {
        self.inner.borrow().err_msg.clone()
    }

    #[php(setter, name = "errMsg")]
    pub fn set_err_msg(&self, v: String) {
        self.inner.borrow_mut().err_msg = v;
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Server>()
}

/// `Co\Http\Server` (with `swoole.use_shortname`).
pub fn register_classes(short: bool) {
    let ce = <Server as RegisteredClass>::get_metadata().ce();
    super::make_final(ce);
    if short {
        super::class_alias("Co\\Http\\Server", ce);
    }
}
