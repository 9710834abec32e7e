//! `PhpHooks`: the engine's `Hooks` implemented by calling the callbacks
//! given to `$server->on()`, through `boundary::call`.
//!
//! It lives in the master and, copied by fork, in every worker. It holds the
//! server object and the callables; both stay on the PHP thread.

use std::collections::HashMap;

use ext_php_rs::convert::IntoZval;
use ext_php_rs::error::php_error;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::types::{ZendClassObject, ZendObject, Zval};

use std::rc::Rc;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicI64};

use super::boundary::{self, CallError};
use super::coroutine::{self, Job};
use super::http_request::{bytes_zval, ParseOptions, Request};
use super::http_response::Response;
use super::server_task;
use super::zval::long_zval;
use crate::coro;
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
    pub task: Option<Zval>,
    pub finish: Option<Zval>,
    pub pipe_message: Option<Zval>,
    /// `bufferFull($server, $fd)` / `bufferEmpty($server, $fd)`.
    pub buffer_full: Option<Zval>,
    pub buffer_empty: Option<Zval>,
    /// WebSocket: `open`, `message`.
    pub open: Option<Zval>,
    pub message: Option<Zval>,
    /// WebSocket: `handshake` (custom upgrade answer) and `disconnect` (a
    /// connection closed without becoming a WebSocket one).
    pub handshake: Option<Zval>,
    pub disconnect: Option<Zval>,
    /// `beforeHandshakeResponse($server, $request, $response)` (Swoole 6.2).
    pub before_handshake_response: Option<Zval>,
    /// SWOOLE_PROCESS: the `dispatch_func` setting (`Hooks::dispatch`).
    pub dispatch_func: Option<Zval>,
    /// Per port (index = engine port index): its connection events, the
    /// port's own or else the server's.
    pub ports: Vec<PortCallbacks>,
}

/// The connection events of one port.
#[derive(Default)]
pub struct PortCallbacks {
    /// `request` of an HTTP port (`$port->on('request')`).
    pub request: Option<Zval>,
    pub connect: Option<Zval>,
    pub receive: Option<Zval>,
    pub close: Option<Zval>,
    pub packet: Option<Zval>,
    /// WebSocket events of a port that set `open_websocket_protocol`.
    pub handshake: Option<Zval>,
    pub open: Option<Zval>,
    pub message: Option<Zval>,
}

impl PortCallbacks {
    /// `own` first, then the server's `fallback`, as Swoole's ports inherit.
    pub fn take(own: &HashMap<&'static str, Zval>, fallback: &HashMap<&'static str, Zval>) -> Self {
        let get = |k: &str| {
            own.get(k)
                .or_else(|| fallback.get(k))
                .map(Zval::shallow_clone)
        };
        PortCallbacks {
            request: get("request"),
            connect: get("connect"),
            receive: get("receive"),
            close: get("close"),
            packet: get("packet"),
            handshake: get("handshake"),
            open: get("open"),
            message: get("message"),
        }
    }
}

impl Callbacks {
    /// `ws` (from the settings) with what these callbacks decide: upgrades
    /// accepted on a WebSocket server (`websocket`), a `handshake` callback
    /// answering them, a `beforeHandshakeResponse` callback.
    pub fn ws_options(&self, ws: &mut crate::engine::config::WsOptions, websocket: bool) {
        ws.enabled = websocket;
        ws.custom_handshake = self.handshake.is_some();
        ws.before_handshake_response = self.before_handshake_response.is_some();
    }

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
            task: get("task"),
            finish: get("finish"),
            pipe_message: get("pipemessage"),
            buffer_full: get("bufferfull"),
            buffer_empty: get("bufferempty"),
            open: get("open"),
            message: get("message"),
            handshake: get("handshake"),
            disconnect: get("disconnect"),
            before_handshake_response: get("beforehandshakeresponse"),
            dispatch_func: None,
            ports: Vec::new(),
        }
    }
}

pub struct PhpHooks {
    /// The `Swoole\Server` object; `start()` holds a reference to it for as
    /// long as any hook can run, so the pointer stays valid.
    server: *mut ZendObject,
    cb: Callbacks,
    /// Shared with every `Request` object (one counter bump per request).
    parse: Rc<ParseOptions>,
    /// `enable_coroutine`: each request runs in its own coroutine.
    coroutine: bool,
    /// `task_enable_coroutine`: `onTask($server, Task)` in a coroutine.
    task_coroutine: bool,
    /// `task_object`: `onTask($server, Task)` without a coroutine.
    task_object: bool,
    /// `event_object`: callbacks get one `Swoole\Server\Event`-like object.
    event_object: bool,
    /// A WebSocket server (`cfg.ws.enabled`): its default `onRequest` is a 400.
    websocket: bool,
}

impl PhpHooks {
    pub fn new(server: *mut ZendObject, cb: Callbacks, cfg: &ServerConfig) -> Self {
        super::http_response::set_output_limit(
            cfg.output_buffer_size
                .filter(|_| cfg.mode == crate::engine::config::Mode::Process),
        );
        super::http_response::set_send_policy(cfg.send_yield(), cfg.send_timeout);
        PhpHooks {
            server,
            cb,
            parse: Rc::new(ParseOptions {
                parse_post: cfg.http_parse_post,
                parse_files: cfg.http_parse_files,
                parse_cookie: cfg.http_parse_cookie,
                upload_tmp_dir: cfg.upload_tmp_dir.clone(),
            }),
            coroutine: cfg.enable_coroutine,
            task_coroutine: cfg.task_enable_coroutine,
            task_object: cfg.task_object,
            event_object: cfg.event_object,
            websocket: cfg.ws.enabled,
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
        args.extend(extra.iter().map(|n| long_zval(*n)));
        self.run_event(cb, args, false)
    }
}

/// An instance of library class `class` (`Swoole\Server\Event`...) with
/// `props` set: what a callback gets with `event_object`.
fn event_obj(class: &str, props: Vec<(&str, Zval)>) -> Option<Zval> {
    let ce = ext_php_rs::zend::ClassEntry::try_find(class)?;
    let mut obj = ZendObject::new(ce);
    for (k, v) in props {
        obj.set_property(k, v).ok()?;
    }
    Some(object_zval(obj))
}

fn float_zval(f: f64) -> Zval {
    let mut z = Zval::new();
    z.set_double(f);
    z
}

fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
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
    /// Calls `cb($request, $response)` for `request` and `handshake`: in a
    /// coroutine when enabled; an exception or a fatal answers 500 (a
    /// graceful exit too, with `unwind_fails`). Inlined: the request (a few
    /// hundred bytes) is moved once less on its way into its object.
    #[inline]
    fn call_http(
        &self,
        cb: &Zval,
        req: HttpRequest,
        resp: Responder,
        unwind_fails: bool,
    ) -> Outcome {
        let fd = req.fd;
        let req_obj = Request::object(req, self.parse.clone());
        let resp_obj: ext_php_rs::boxed::ZBox<ZendObject> =
            ZendClassObject::new(Response::new(resp.clone(), fd)).into();
        let args = [object_zval(req_obj), object_zval(resp_obj)];
        if self.coroutine {
            return self.request_in_coroutine(cb, args, resp, fd);
        }
        let result = boundary::call_owned(cb, args);
        match result {
            Ok(_) => Outcome::Done,
            Err(CallError::Unwind) => {
                if unwind_fails {
                    resp.fail(500);
                }
                Outcome::Done
            }
            Err(CallError::Exception) => {
                resp.fail(500);
                Outcome::Done
            }
            Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) => {
                resp.fail(500);
                Outcome::Fatal(code)
            }
        }
    }

    fn request_in_coroutine(
        &self,
        cb: &Zval,
        args: [Zval; 2],
        resp: Responder,
        fd: i64,
    ) -> Outcome {
        // Two arguments and a one-word `done`: started with no allocation.
        let done = move |result| match result {
            Some(Ok(())) => {}
            Some(Err(CallError::Exception)) | Some(Err(CallError::Unwind)) => resp.fail(500),
            Some(Err(CallError::Exit(code))) | Some(Err(CallError::Fatal(code))) => {
                resp.fail(500);
                FATAL.report(code);
            }
            // Swoole's answer at `max_coroutine` (after its warnings, below).
            None => resp.fail(503),
        };
        let spawned = FATAL.spawning(|| coroutine::spawn_two(cb, args, done));
        if let Ok(cid) = spawned {
            // request_timeout: the coroutine to wake when it passes.
            if super::watchdog::tracking() && coro::exists(cid) {
                super::watchdog::track(fd, cid);
            }
        }
        if let Err(coro::Error::Limit(n)) = spawned {
            // Swoole's answer at `max_coroutine`: two warnings and a 503.
            php_error(
                &ErrorType::Warning,
                &format!("exceed max number of coroutine {n}"),
            );
            php_error(
                &ErrorType::Warning,
                "Swoole\\Http\\Server->onRequest handler error",
            );
        }
        FATAL.outcome()
    }

    /// Starts `job` in a coroutine; `Fatal` if its body already hit
    /// `exit()` or a fatal error before its first wait.
    fn spawn_job(&self, job: Job) -> Outcome {
        if let Err(e) = FATAL.spawning(|| coroutine::spawn(job)) {
            crate::rlog!(Warning, "cannot start a coroutine for a callback: {e:?}");
        }
        FATAL.outcome()
    }

    /// `connect`, `receive` and `close`: `($server, $fd, $reactorId[, $data])`.
    fn conn_event(
        &self,
        port: usize,
        pick: impl Fn(&PortCallbacks) -> &Option<Zval>,
        fd: i64,
        reactor_id: i32,
        data: Option<&bytes::Bytes>,
    ) -> Outcome {
        let Some(cb) = self.port_cb(port, pick) else {
            return Outcome::Done;
        };
        if self.event_object {
            let mut props = vec![
                ("fd", long_zval(fd)),
                ("reactor_id", long_zval(reactor_id as i64)),
                ("dispatch_time", float_zval(now_secs())),
            ];
            if let Some(d) = data {
                props.push(("data", bytes_zval(d)));
            }
            if let Some(ev) = event_obj("Swoole\\Server\\Event", props) {
                return self.run_event(cb, vec![self.server_zval(), ev], self.coroutine);
            }
        }
        let mut args = vec![
            self.server_zval(),
            long_zval(fd),
            long_zval(reactor_id as i64),
        ];
        if let Some(d) = data {
            args.push(bytes_zval(d));
        }
        self.run_event(cb, args, self.coroutine)
    }
}

/// How a coroutine started by a hook reports `exit()` or a fatal error.
///
/// Before the coroutine's first wait the hook that spawned it is still on
/// the stack and returns the failure as `Outcome::Fatal` (the engine poisons
/// the worker). After it, no hook is running: the worker is poisoned
/// directly (`engine::worker::halt`), so it drains without `onWorkerStop` /
/// `onWorkerExit` and exits with the code, as the docs' failure table says.
///
/// Process-wide (NTS PHP runs hooks on one thread): a nested spawn from
/// any server's hook is reported by the outermost one, and a request's
/// `done` holds no reference to it.
struct FatalSink {
    /// A spawn is running its coroutine up to the first wait.
    spawning: AtomicBool,
    /// The code reported during that spawn (`NO_CODE`: none).
    code: AtomicI64,
}

const NO_CODE: i64 = i64::MIN;

static FATAL: FatalSink = FatalSink {
    spawning: AtomicBool::new(false),
    code: AtomicI64::new(NO_CODE),
};

impl FatalSink {
    #[inline(always)]
    fn spawning<R>(&self, f: impl FnOnce() -> R) -> R {
        // A load and a store (one thread), not a locked swap.
        let outer = self.spawning.load(Relaxed);
        self.spawning.store(true, Relaxed);
        let r = f();
        self.spawning.store(outer, Relaxed);
        r
    }

    fn report(&self, code: i32) {
        if self.spawning.load(Relaxed) {
            if self.code.load(Relaxed) == NO_CODE {
                self.code.store(i64::from(code), Relaxed);
            }
        } else if !crate::engine::worker::halt::poison(code) {
            // No serve loop to drain in: PHP cannot run on here.
            boundary::end_process(code);
        }
    }

    /// The failure reported during the spawn that just returned.
    #[inline(always)]
    fn outcome(&self) -> Outcome {
        if self.spawning.load(Relaxed) {
            // A nested spawn (a hook fired from a coroutine's first run):
            // the outer one reports it.
            return Outcome::Done;
        }
        let code = self.code.load(Relaxed);
        if code == NO_CODE {
            return Outcome::Done;
        }
        self.code.store(NO_CODE, Relaxed);
        Outcome::Fatal(code as i32)
    }
}

impl PhpHooks {
    /// Runs an event callback: in a new coroutine when `in_coroutine`
    /// (`enable_coroutine`), plainly otherwise. `Fatal` when PHP cannot go on.
    fn run_event(&self, cb: &Zval, args: Vec<Zval>, in_coroutine: bool) -> Outcome {
        if in_coroutine {
            let job = Job {
                callable: cb.shallow_clone(),
                args,
                done: Some(Box::new(move |result| {
                    if let Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) = result {
                        FATAL.report(code);
                    }
                })),
            };
            return self.spawn_job(job);
        }
        match boundary::call_owned(cb, args).map(drop) {
            Ok(()) | Err(CallError::Exception) | Err(CallError::Unwind) => Outcome::Done,
            Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) => Outcome::Fatal(code),
        }
    }

    /// `onPacket` for a datagram from `address` (an IP, or a unix path
    /// with port 0).
    fn packet_event(
        &self,
        port: usize,
        data: bytes::Bytes,
        address: &str,
        peer_port: u16,
        server_socket: i32,
        server_port: u16,
    ) -> Outcome {
        let Some(cb) = self.port_cb(port, |p| &p.packet) else {
            return Outcome::Done;
        };
        if self.event_object {
            let mut address_z = Zval::new();
            let _ = address_z.set_string(address, false);
            let props = vec![
                ("server_socket", long_zval(server_socket as i64)),
                ("server_port", long_zval(server_port as i64)),
                ("dispatch_time", float_zval(now_secs())),
                ("address", address_z),
                ("port", long_zval(peer_port as i64)),
                ("data", bytes_zval(&data)),
            ];
            if let Some(ev) = event_obj("Swoole\\Server\\Packet", props) {
                return self.run_event(cb, vec![self.server_zval(), ev], self.coroutine);
            }
        }
        let mut info = ext_php_rs::types::ZendHashTable::new();
        let _ = info.insert("server_socket", server_socket as i64);
        let _ = info.insert("server_port", server_port as i64);
        let _ = info.insert("address", address);
        let _ = info.insert("port", peer_port as i64);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        let _ = info.insert("dispatch_time", now);
        let mut info_z = Zval::new();
        info_z.set_hashtable(info);
        let args = vec![self.server_zval(), bytes_zval(&data), info_z];
        self.run_event(cb, args, self.coroutine)
    }

    fn port_cb(
        &self,
        port: usize,
        pick: impl Fn(&PortCallbacks) -> &Option<Zval>,
    ) -> Option<&Zval> {
        self.cb.ports.get(port).and_then(|p| pick(p).as_ref())
    }

    /// The callback `pick` of connection `fd`'s port (its own, else the
    /// server's, as `PortCallbacks::take` merged them), or the server's
    /// `fallback` with one port (the common case needs no lookup).
    fn fd_cb<'a>(
        &'a self,
        fd: i64,
        pick: impl Fn(&PortCallbacks) -> &Option<Zval>,
        fallback: &'a Option<Zval>,
    ) -> Option<&'a Zval> {
        if self.cb.ports.len() > 1 {
            if let Some(p) = crate::engine::net::conns::port_of(fd) {
                return self.port_cb(p, pick);
            }
        }
        fallback.as_ref()
    }
}

impl Hooks for PhpHooks {
    fn on_connect(&self, fd: i64, reactor_id: i32, port: usize) -> Outcome {
        self.conn_event(port, |p| &p.connect, fd, reactor_id, None)
    }

    fn on_receive(&self, fd: i64, reactor_id: i32, port: usize, data: bytes::Bytes) -> Outcome {
        self.conn_event(port, |p| &p.receive, fd, reactor_id, Some(&data))
    }

    fn on_close(&self, fd: i64, reactor_id: i32, port: usize) -> Outcome {
        self.conn_event(port, |p| &p.close, fd, reactor_id, None)
    }

    fn dispatch(&self, fd: i64, kind: i32, data: &bytes::Bytes) -> Option<i64> {
        let cb = self.cb.dispatch_func.as_ref()?;
        // Swoole passes at most one IPC buffer of the message.
        let data = &data[..data.len().min(8192)];
        let args = [
            self.server_zval(),
            long_zval(fd),
            long_zval(kind as i64),
            crate::php::zval::bytes_zval(data),
        ];
        match boundary::call_owned(cb, args) {
            Ok(rv) => {
                if rv.is_null() {
                    return None;
                }
                let id = rv
                    .long()
                    .or_else(|| rv.double().map(|f| f as i64))
                    .or_else(|| rv.bool().map(i64::from))
                    .or_else(|| rv.str().and_then(|s| s.trim().parse().ok()))
                    .unwrap_or(0);
                if id >= crate::engine::ipc::worker_num().max(1) as i64 {
                    php_error(
                        &ErrorType::Warning,
                        &format!("invalid target worker-id[{id}]"),
                    );
                    return Some(-1);
                }
                Some(id)
            }
            Err(_) => {
                let z = self.server_zval();
                let class = z
                    .object()
                    .and_then(|o| o.get_class_name().ok())
                    .unwrap_or_else(|| "Swoole\\Server".into());
                php_error(
                    &ErrorType::Warning,
                    &format!("{class}->onDispatch handler error"),
                );
                None
            }
        }
    }

    fn on_packet(
        &self,
        port: usize,
        data: bytes::Bytes,
        peer: std::net::SocketAddr,
        server_socket: i32,
        server_port: u16,
    ) -> Outcome {
        let address = peer.ip().to_string();
        self.packet_event(
            port,
            data,
            &address,
            peer.port(),
            server_socket,
            server_port,
        )
    }

    fn on_unix_packet(
        &self,
        port: usize,
        data: bytes::Bytes,
        path: &str,
        server_socket: i32,
    ) -> Outcome {
        self.packet_event(port, data, path, 0, server_socket, 0)
    }
    fn on_task(&self, task_id: i64, src_worker: i32, data: bytes::Bytes, flags: u32) -> Outcome {
        // A packet from the System V queue (`task_ipc_mode` 2/3): its own
        // header says the task id, the sender and the flags.
        let (task_id, src_worker, data, flags) = if flags & crate::engine::ipc::FLAG_QUEUED != 0 {
            match server_task::decode_queued(&data) {
                Some((id, src, d, f)) => (id, src, bytes::Bytes::from(d), f),
                None => return Outcome::Done,
            }
        } else {
            (task_id, src_worker, data, flags)
        };
        // A task from the master, the manager or a user process takes no
        // result: as a master's (-1) one, finish() answers false.
        let src_worker = if server_task::no_reply_flag(flags) {
            -1
        } else {
            src_worker
        };
        let Some(cb) = &self.cb.task else {
            crate::rlog!(Warning, "require 'onTask' callback: task#{task_id} dropped");
            return Outcome::Done;
        };
        // A payload that cannot be restored (an exception in `__wakeup`,
        // logged by the boundary) is not handed to onTask, as in Swoole.
        let value = match server_task::unpack(&data, flags) {
            Ok(v) => v,
            Err(CallError::Exception) | Err(CallError::Unwind) => return Outcome::Done,
            Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) => {
                return Outcome::Fatal(code)
            }
        };
        if self.task_coroutine {
            let obj: ext_php_rs::boxed::ZBox<ZendObject> =
                ZendClassObject::new(server_task::Task::new(task_id, src_worker, flags, value))
                    .into();
            let args = vec![self.server_zval(), object_zval(obj)];
            return self.run_event(cb, args, true);
        }
        server_task::set_current(Some((task_id, src_worker)));
        let result = if self.task_object {
            // `onTask($server, Task)` without a coroutine: `$server->finish()`
            // and a returned value answer the task, as without the object.
            let obj: ext_php_rs::boxed::ZBox<ZendObject> =
                ZendClassObject::new(server_task::Task::new(task_id, src_worker, flags, value))
                    .into();
            boundary::call_owned(cb, [self.server_zval(), object_zval(obj)])
        } else {
            let args = [
                self.server_zval(),
                long_zval(task_id),
                long_zval(src_worker.max(0) as i64), // the master's tasks say 0, as Swoole's
                value,
            ];
            boundary::call_owned(cb, args)
        };
        server_task::set_current(None);
        match result {
            Ok(ret) if ret.is_null() => Outcome::Done,
            // Serializing the result runs user code: through the boundary.
            Ok(ret) => {
                let sent = server_task::finish_from_hook(task_id, src_worker, &ret);
                // The result's last reference may run a `__destruct`.
                match boundary::worst(sent, boundary::release(ret)) {
                    Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) => {
                        Outcome::Fatal(code)
                    }
                    _ => Outcome::Done,
                }
            }
            Err(CallError::Exception) | Err(CallError::Unwind) => Outcome::Done,
            Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) => Outcome::Fatal(code),
        }
    }

    fn on_finish(&self, task_id: i64, task_worker: i32, data: bytes::Bytes, flags: u32) -> Outcome {
        let value = match server_task::unpack_or_false(&data, flags) {
            Ok(v) => v,
            Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) => {
                return Outcome::Fatal(code)
            }
            Err(_) => return Outcome::Done,
        };
        let cb = match server_task::route_finish(task_id, &value) {
            server_task::FinishTarget::Taken => return Outcome::Done,
            server_task::FinishTarget::Callback(cb) => cb,
            server_task::FinishTarget::OnFinish => match &self.cb.finish {
                Some(cb) => cb.shallow_clone(),
                None => return Outcome::Done,
            },
        };
        if self.event_object {
            let props = vec![
                ("task_id", long_zval(task_id)),
                ("task_worker_id", long_zval(task_worker as i64)),
                ("dispatch_time", float_zval(now_secs())),
                ("data", value.shallow_clone()),
            ];
            if let Some(ev) = event_obj("Swoole\\Server\\TaskResult", props) {
                return self.run_event(&cb, vec![self.server_zval(), ev], self.coroutine);
            }
        }
        let args = vec![self.server_zval(), long_zval(task_id), value];
        self.run_event(&cb, args, self.coroutine)
    }

    fn on_remote_response(&self, fd: i64, data: bytes::Bytes) -> Outcome {
        super::http_response::answer_remote(fd, &data);
        Outcome::Done
    }

    fn on_pipe_message(&self, src_worker: i32, data: bytes::Bytes, flags: u32) -> Outcome {
        let Some(cb) = &self.cb.pipe_message else {
            return Outcome::Done;
        };
        let value = match server_task::unpack_or_false(&data, flags) {
            Ok(v) => v,
            Err(CallError::Exit(code)) | Err(CallError::Fatal(code)) => {
                return Outcome::Fatal(code)
            }
            Err(_) => return Outcome::Done,
        };
        if self.event_object {
            let props = vec![
                ("source_worker_id", long_zval(src_worker as i64)),
                ("worker_id", long_zval(src_worker as i64)),
                ("dispatch_time", float_zval(now_secs())),
                ("data", value.shallow_clone()),
            ];
            if let Some(ev) = event_obj("Swoole\\Server\\PipeMessage", props) {
                return self.run_event(cb, vec![self.server_zval(), ev], self.coroutine);
            }
        }
        let args = vec![self.server_zval(), long_zval(src_worker as i64), value];
        self.run_event(cb, args, self.coroutine)
    }

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
        // In a coroutine, as in Swoole (task workers: `task_enable_coroutine`).
        let Some(cb) = &self.cb.worker_start else {
            return Outcome::Done;
        };
        let in_coroutine = if crate::engine::worker::is_task_worker() {
            self.task_coroutine
        } else {
            self.coroutine
        };
        let args = vec![self.server_zval(), long_zval(worker_id as i64)];
        self.run_event(cb, args, in_coroutine)
    }

    fn on_worker_stop(&self, worker_id: usize) {
        self.fire(&self.cb.worker_stop, &[worker_id as i64]);
    }

    fn on_worker_exit(&self, worker_id: usize) {
        self.fire(&self.cb.worker_exit, &[worker_id as i64]);
    }

    fn on_worker_error(&self, worker_id: usize, pid: i32, exit_code: i32, signal: i32) {
        if let (true, Some(cb)) = (self.event_object, &self.cb.worker_error) {
            // The raw wait status, as waitpid() reports it.
            let status = if signal != 0 {
                signal
            } else {
                (exit_code & 0xff) << 8
            };
            let props = vec![
                ("worker_id", long_zval(worker_id as i64)),
                ("worker_pid", long_zval(pid as i64)),
                ("status", long_zval(status as i64)),
                ("exit_code", long_zval(exit_code as i64)),
                ("signal", long_zval(signal as i64)),
            ];
            if let Some(ev) = event_obj("Swoole\\Server\\StatusInfo", props) {
                self.run_event(cb, vec![self.server_zval(), ev], false);
                return;
            }
        }
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

    fn on_buffer(&self, fd: i64, full: bool) -> Outcome {
        let cb = if full {
            &self.cb.buffer_full
        } else {
            &self.cb.buffer_empty
        };
        let Some(cb) = cb else {
            return Outcome::Done;
        };
        self.run_event(cb, vec![self.server_zval(), long_zval(fd)], self.coroutine)
    }

    fn on_request(&self, req: HttpRequest, resp: Responder) -> Outcome {
        // The port's own `request` (else the server's), as in Swoole. One
        // port (the common case) needs no lookup.
        let own = if self.cb.ports.len() > 1 {
            crate::engine::net::conns::port_of(req.fd).and_then(|p| self.port_cb(p, |c| &c.request))
        } else {
            None
        };
        let Some(cb) = own.or(self.cb.request.as_ref()) else {
            if self.websocket {
                // Swoole's default onRequest of a WebSocket server.
                let _ = resp.status(400, None);
                let _ = resp.header("Content-Type", b"text/html; charset=UTF-8", true);
                let _ = resp.header("Cache-Control", b"must-revalidate,no-cache,no-store", true);
                let _ = resp.header("Connection", b"close", true);
                let _ = resp.end(bytes::Bytes::from_static(
                    b"<html><body><h2>HTTP 400 Bad Request</h2><hr><i>Powered by Swoole</i></body></html>",
                ));
                return Outcome::Done;
            }
            resp.fail(500);
            return Outcome::Done;
        };
        self.call_http(cb, req, resp, true)
    }

    fn on_request_timeout(&self, fd: i64) {
        super::watchdog::cancel(fd);
    }

    fn on_ws_handshake(&self, req: HttpRequest, resp: Responder) -> Outcome {
        let Some(cb) = self.fd_cb(req.fd, |c| &c.handshake, &self.cb.handshake) else {
            resp.fail(400);
            return Outcome::Done;
        };
        // Swoole calls it like `request`: ($request, $response).
        self.call_http(cb, req, resp, false)
    }

    fn on_ws_before_handshake_response(&self, req: HttpRequest, resp: Responder) -> Outcome {
        let Some(cb) = &self.cb.before_handshake_response else {
            return Outcome::Done;
        };
        let fd = req.fd;
        let req_obj: ext_php_rs::boxed::ZBox<ZendObject> =
            ZendClassObject::new(Request::new(req, self.parse.clone())).into();
        let resp_obj: ext_php_rs::boxed::ZBox<ZendObject> =
            ZendClassObject::new(Response::new(resp, fd)).into();
        let args = vec![
            self.server_zval(),
            object_zval(req_obj),
            object_zval(resp_obj),
        ];
        self.run_event(cb, args, self.coroutine)
    }

    fn on_disconnect(&self, fd: i64, reactor_id: i32) -> Outcome {
        let Some(cb) = &self.cb.disconnect else {
            return Outcome::Done;
        };
        let args = vec![
            self.server_zval(),
            long_zval(fd),
            long_zval(reactor_id as i64),
        ];
        self.run_event(cb, args, self.coroutine)
    }

    fn on_ws_open(&self, req: HttpRequest) -> Outcome {
        let Some(cb) = self.fd_cb(req.fd, |c| &c.open, &self.cb.open) else {
            return Outcome::Done;
        };
        let req_obj: ext_php_rs::boxed::ZBox<ZendObject> =
            ZendClassObject::new(Request::new(req, self.parse.clone())).into();
        let args = vec![self.server_zval(), object_zval(req_obj)];
        self.run_event(cb, args, self.coroutine)
    }

    fn on_ws_message(&self, fd: i64, data: bytes::Bytes, opcode: u8, flags: u8) -> Outcome {
        let Some(cb) = self.fd_cb(fd, |c| &c.message, &self.cb.message) else {
            return Outcome::Done;
        };
        let frame: ext_php_rs::boxed::ZBox<ZendObject> = if opcode == 8 {
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
        let args = vec![self.server_zval(), object_zval(frame)];
        self.run_event(cb, args, self.coroutine)
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
