//! `PhpHooks`: the engine's `Hooks` implemented by calling the callbacks
//! given to `$server->on()`, through `boundary::call`.
//!
//! It lives in the master and, copied by fork, in every worker. It holds the
//! server object and the callables; both stay on the PHP thread.

use std::collections::HashMap;

use ext_php_rs::convert::IntoZval;
use ext_php_rs::types::{ZendClassObject, ZendObject, Zval};

use std::cell::Cell;
use std::rc::Rc;

use super::boundary::{self, CallError};
use super::coroutine::{self, Job};
use super::http_request::{ParseOptions, Request};
use super::http_response::Response;
use crate::engine::config::ServerConfig;
use crate::engine::hooks::{Hooks, Outcome};
use crate::engine::http::{HttpRequest, Responder};

/// The callbacks the engine can fire, copied out of the server at `start()`.
#[derive(Default)]
pub struct Callbacks {
    pub start: Option<Zval>,
    pub shutdown: Option<Zval>,
    pub manager_start: Option<Zval>,
    pub manager_stop: Option<Zval>,
    pub worker_start: Option<Zval>,
    pub worker_stop: Option<Zval>,
    pub worker_exit: Option<Zval>,
    pub worker_error: Option<Zval>,
    pub request: Option<Zval>,
    pub before_shutdown: Option<Zval>,
    pub before_reload: Option<Zval>,
    pub after_reload: Option<Zval>,
}

impl Callbacks {
    pub fn take(map: &HashMap<&'static str, Zval>) -> Self {
        let get = |k: &str| map.get(k).map(Zval::shallow_clone);
        Callbacks {
            start: get("start"),
            shutdown: get("shutdown"),
            manager_start: get("managerstart"),
            manager_stop: get("managerstop"),
            worker_start: get("workerstart"),
            worker_stop: get("workerstop"),
            worker_exit: get("workerexit"),
            worker_error: get("workererror"),
            request: get("request"),
            before_shutdown: get("beforeshutdown"),
            before_reload: get("beforereload"),
            after_reload: get("afterreload"),
        }
    }
}

pub struct PhpHooks {
    /// The `Swoole\Server` object; `start()` holds a reference to it for as
    /// long as any hook can run, so the pointer stays valid.
    server: *mut ZendObject,
    cb: Callbacks,
    parse: ParseOptions,
    /// `enable_coroutine`: each request runs in its own coroutine.
    coroutine: bool,
    /// Set by a coroutine whose body hit `exit()` or a fatal error, so the
    /// request that started it can tell the engine (`Outcome::Fatal`).
    fatal: Rc<Cell<Option<i32>>>,
}

impl PhpHooks {
    pub fn new(server: *mut ZendObject, cb: Callbacks, cfg: &ServerConfig) -> Self {
        PhpHooks {
            server,
            cb,
            parse: ParseOptions {
                parse_post: cfg.http_parse_post,
                parse_cookie: cfg.http_parse_cookie,
                upload_tmp_dir: cfg.upload_tmp_dir.clone(),
            },
            coroutine: cfg.enable_coroutine,
            fatal: Rc::new(Cell::new(None)),
        }
    }

    fn server_zval(&self) -> Zval {
        let mut z = Zval::new();
        // SAFETY: see the field comment; set_object adds a reference.
        z.set_object(unsafe { &mut *self.server });
        z
    }

    /// Fires a lifecycle event; `Fatal` when PHP cannot continue here.
    fn fire(&self, cb: &Option<Zval>, extra: &[i64]) -> Outcome {
        let Some(cb) = cb else {
            return Outcome::Done;
        };
        let mut args = Vec::with_capacity(1 + extra.len());
        args.push(self.server_zval());
        for n in extra {
            let mut z = Zval::new();
            z.set_long(*n);
            args.push(z);
        }
        match boundary::call_void(cb, &mut args) {
            Ok(()) | Err(CallError::Exception) => Outcome::Done,
            Err(CallError::Exit(code)) => Outcome::Fatal(code),
            Err(CallError::Fatal(code)) => Outcome::Fatal(code),
            Err(CallError::Unwind) => Outcome::Done,
        }
    }
}

fn object_zval(obj: ext_php_rs::boxed::ZBox<ZendObject>) -> Zval {
    let mut z = Zval::new();
    // Moves the box's one reference into the zval.
    let _ = obj.set_zval(&mut z, false);
    z
}

impl PhpHooks {
    /// Runs the request callback in a new coroutine: it runs at once until
    /// it first waits; the response may be ended later, from the coroutine.
    fn request_in_coroutine(&self, cb: &Zval, args: [Zval; 2], resp: Responder) -> Outcome {
        let fatal = self.fatal.clone();
        let job = Job {
            callable: cb.shallow_clone(),
            args: args.into(),
            done: Some(Box::new(move |result| match result {
                Ok(()) => {}
                Err(CallError::Exception) | Err(CallError::Unwind) => resp.fail(500),
                Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) => {
                    resp.fail(500);
                    fatal.set(Some(code));
                    // After the coroutine's first wait nobody returns an
                    // Outcome any more: drain this worker the usual way.
                    // SAFETY: raise() on our own process.
                    unsafe { libc::raise(libc::SIGTERM) };
                }
            })),
        };
        if let Err(e) = coroutine::spawn(job) {
            crate::rlog!(Warning, "cannot start a coroutine for the request: {e:?}");
        }
        match self.fatal.take() {
            Some(code) => Outcome::Fatal(code),
            None => Outcome::Done,
        }
    }
}

impl Hooks for PhpHooks {
    fn on_start(&self) {
        self.fire(&self.cb.start, &[]);
    }

    fn on_manager_start(&self) {
        self.fire(&self.cb.manager_start, &[]);
    }

    fn on_manager_stop(&self) {
        self.fire(&self.cb.manager_stop, &[]);
    }

    fn on_worker_start(&self, worker_id: usize) -> Outcome {
        self.fire(&self.cb.worker_start, &[worker_id as i64])
    }

    fn on_worker_stop(&self, worker_id: usize) {
        self.fire(&self.cb.worker_stop, &[worker_id as i64]);
    }

    fn on_worker_exit(&self, worker_id: usize) {
        self.fire(&self.cb.worker_exit, &[worker_id as i64]);
    }

    fn on_worker_error(&self, worker_id: usize, pid: i32, exit_code: i32, signal: i32) {
        self.fire(
            &self.cb.worker_error,
            &[
                worker_id as i64,
                pid as i64,
                exit_code as i64,
                signal as i64,
            ],
        );
    }

    fn on_request(&self, req: HttpRequest, resp: Responder) -> Outcome {
        let Some(cb) = &self.cb.request else {
            resp.fail(500);
            return Outcome::Done;
        };
        let fd = req.fd;
        let req_obj: ext_php_rs::boxed::ZBox<ZendObject> =
            ZendClassObject::new(Request::new(req, self.parse.clone())).into();
        let resp_obj: ext_php_rs::boxed::ZBox<ZendObject> =
            ZendClassObject::new(Response::new(resp.clone(), fd)).into();
        let mut args = [object_zval(req_obj), object_zval(resp_obj)];
        if self.coroutine {
            return self.request_in_coroutine(cb, args, resp);
        }
        let result = boundary::call(cb, &mut args);
        drop(args);
        match result {
            Ok(_) => Outcome::Done,
            Err(CallError::Exception) => {
                resp.fail(500);
                Outcome::Done
            }
            Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) => {
                resp.fail(500);
                Outcome::Fatal(code)
            }
            Err(CallError::Unwind) => {
                resp.fail(500);
                Outcome::Done
            }
        }
    }

    fn on_shutdown(&self) {
        self.fire(&self.cb.shutdown, &[]);
    }

    fn on_before_shutdown(&self) {
        self.fire(&self.cb.before_shutdown, &[]);
    }

    fn on_before_reload(&self) {
        self.fire(&self.cb.before_reload, &[]);
    }

    fn on_after_reload(&self) {
        self.fire(&self.cb.after_reload, &[]);
    }

    fn before_process_exit(&self) {
        // SAFETY: flushing PHP's output buffers on the PHP thread, as
        // php_request_shutdown would.
        unsafe { ext_php_rs::ffi::php_output_end_all() };
    }
}
