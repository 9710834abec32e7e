//! `Swoole\Coroutine\Http\Server` (`Co\Http\Server`): an HTTP server in the
//! script's own process, under `Co\run()`. The constructor binds and
//! listens; `start()` suspends the calling coroutine while the engine's
//! HTTP/1 code (`engine::http_coro`, `engine::http::conn`) serves each
//! connection on the current loop, and every request runs its handler in a
//! new coroutine with the same `Swoole\Http\Request`/`Response` objects as
//! `Swoole\Http\Server` gives.

use std::cell::RefCell;
use std::rc::Rc;

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
use crate::engine::http::{HttpRequest, Responder};
use crate::engine::http_coro::{BindStep, Stop};
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
        if ssl {
            return Err(exception(
                "SSL is not supported by rswoole's Coroutine\\Http\\Server yet",
                libc::EINVAL,
            ));
        }
        let bind_port = u16::try_from(port).unwrap_or(0);
        match crate::engine::http_coro::bind(
            &host,
            bind_port,
            reuse_port,
            crate::engine::listener::DEFAULT_BACKLOG,
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
        if crate::coro::current() < 0 {
            return Err(PhpException::new(
                "API must be called in the coroutine".into(),
                super::errors::SWOOLE_ERROR_CO_OUT_OF_COROUTINE as i32,
                super::exception::error_ce(),
            ));
        }
        let (listener, settings) = {
            let inner = self.inner.borrow();
            let Some(l) = inner.listener.as_ref().and_then(|l| l.try_clone().ok()) else {
                return Ok(false);
            };
            (l, inner.settings.as_ref().map(Zval::shallow_clone))
        };
        let cfg = super::settings::to_config(CLASS, settings.as_ref().and_then(Zval::array), false)
            .unwrap_or_default();
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
            crate::engine::http_coro::serve(&listener, ctx, stop).await
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
