//! `Swoole\Server`: construction (which binds, as Swoole does), `set()`,
//! `on()`, `start()` and the process properties. `Swoole\Http\Server` is an
//! internal subclass registered in `http_server.rs`; both share this state.
//!
//! Every method takes `&self` and keeps its `RefCell` borrows short: callbacks
//! started from `start()` call back into these methods on the same object.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::class::RegisteredClass;
use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpResult;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, ZendObject, Zval};

use bytes::Bytes;

use super::callbacks::{Callbacks, PhpHooks, PortCallbacks};
use super::constants::{
    SWOOLE_BASE, SWOOLE_PROCESS, SWOOLE_SOCK_TCP, SWOOLE_SOCK_TCP6, SWOOLE_SOCK_UDP,
    SWOOLE_SOCK_UDP6, SWOOLE_SOCK_UNIX_DGRAM, SWOOLE_SOCK_UNIX_STREAM, SWOOLE_SSL,
};
use super::exception::swoole_exception;
use super::server_port::{Port as PortObj, PortState};
use super::server_task;
use super::settings;
use super::zval::scalar_bytes as zval_bytes;
use super::zval::{bytes_zval, double_zval, false_zval, long_zval};
use crate::engine::net::listener::{Port, PortKind, PortSocket};
use crate::engine::{
    ipc, log, net::conns, net::listener, net::tcp, proc::supervisor as process, shared::session,
    shared::stats, worker,
};

/// Server-level event names (lower-case); `on()` also takes every port
/// event (`server_port::PORT_EVENTS`), as Swoole forwards those to port 0.
pub const SERVER_EVENTS: &[&str] = &[
    "start",
    "beforeshutdown",
    "shutdown",
    "workerstart",
    "workerstop",
    "beforereload",
    "afterreload",
    "task",
    "finish",
    "workerexit",
    "workererror",
    "managerstart",
    "managerstop",
    "pipemessage",
];

#[php_class]
#[php(name = "Swoole\\Server")]
pub struct Server {
    host: String,
    port: Cell<i64>,
    mode: i64,
    sock_type: i64,
    /// Bound in the constructor (so a busy port fails there, as in Swoole);
    /// taken by `start()` and inherited by every worker through fork.
    listener: RefCell<Option<PortSocket>>,
    /// Every port: index 0 is the main one (its socket is `listener`),
    /// then each `listen()`/`addListener()`.
    ports: RefCell<Vec<Rc<RefCell<PortState>>>>,
    /// `$server->ports`: the `Swoole\Server\Port` objects, made on first use.
    port_objects: RefCell<Vec<Zval>>,
    /// The merged array of every `set()` call: `$server->setting`.
    setting: RefCell<Option<Zval>>,
    /// Callbacks by lower-case event name.
    callbacks: RefCell<HashMap<&'static str, Zval>>,
    started: Cell<bool>,
    /// `addProcess()`: the `Swoole\Process` objects, in order.
    user_processes: RefCell<Vec<Zval>>,
}

impl Server {
    fn class_name(obj: &ZendObject) -> String {
        obj.get_class_name()
            .unwrap_or_else(|_| "Swoole\\Server".into())
    }
}

#[php_impl]
impl Server {
    #[php(defaults(host = String::from("0.0.0.0"), port = 0, mode = 1, sock_type = 1))]
    pub fn __construct(host: String, port: i64, mode: i64, sock_type: i64) -> PhpResult<Self> {
        if mode != SWOOLE_BASE && mode != SWOOLE_PROCESS {
            return Err(PhpException::new(
                format!("invalid $mode parameters {mode}"),
                0,
                ext_php_rs::zend::ce::error(),
            ));
        }
        let sock = bind_port(&host, port, sock_type)?;
        let real_port = sock.local_port() as i64;
        let main = PortState::new(host.clone(), real_port, sock_type, None);
        Ok(Server {
            host,
            port: Cell::new(real_port),
            mode,
            sock_type,
            listener: RefCell::new(Some(sock)),
            ports: RefCell::new(vec![Rc::new(RefCell::new(main))]),
            port_objects: RefCell::new(Vec::new()),
            setting: RefCell::new(None),
            callbacks: RefCell::new(HashMap::new()),
            started: Cell::new(false),
            user_processes: RefCell::new(Vec::new()),
        })
    }

    /// Merges `$settings` into `$server->setting` after checking it.
    pub fn set(self_: &ZendClassObject<Server>, settings: &ZendHashTable) -> PhpResult<bool> {
        let class = Self::class_name(&self_.std);
        if self_.started.get() {
            php_error(
                &ErrorType::Warning,
                &format!("server is running, unable to execute {class}->set"),
            );
            return Ok(false);
        }
        settings::validate(&class, settings)?;
        let mut cur = self_.setting.borrow_mut();
        let merged = cur.get_or_insert_with(|| {
            let mut z = Zval::new();
            z.set_hashtable(ZendHashTable::new());
            z
        });
        if let Some(arr) = merged.array_mut() {
            for (k, v) in settings.iter() {
                let _ = arr.insert(k, v.shallow_clone());
            }
        }
        Ok(true)
    }

    /// Registers `$callback` for `$event_name` (case-insensitive).
    pub fn on(&self, event_name: String, callback: &Zval) -> bool {
        let lower = event_name.to_ascii_lowercase();
        let Some(name) = SERVER_EVENTS
            .iter()
            .chain(super::server_port::PORT_EVENTS)
            .find(|e| **e == lower)
        else {
            // Swoole hands unknown names to the primary port's on().
            super::errors::warning_as(
                "Swoole\\Server\\Port::on()",
                &format!("unknown event types[{event_name}]"),
            );
            return false;
        };
        if self.started.get() {
            php_error(
                &ErrorType::Warning,
                "server is running, unable to register event callback function",
            );
            return false;
        }
        if !callback.is_callable() {
            let shown = super::errors::callable_name(callback);
            let msg = format!("function '{shown}' is not callable");
            if super::server_port::PORT_EVENTS.iter().any(|e| *e == lower) {
                // Swoole hands port events to the primary port's on().
                super::errors::warning_as("Swoole\\Server\\Port::on()", &msg);
            } else {
                php_error(&ErrorType::Warning, &msg);
            }
            return false;
        }
        self.callbacks
            .borrow_mut()
            .insert(name, callback.shallow_clone());
        true
    }

    /// Registers a named command for `command()` (before `start()`).
    pub fn add_command(
        self_: &mut ZendClassObject<Server>,
        name: String,
        accepted_process_types: i64,
        callback: &Zval,
    ) -> bool {
        let obj: *mut ZendObject = &raw mut self_.std;
        let started = self_.started.get();
        super::server_command::add(obj, started, name, accepted_process_types, callback)
    }

    /// Runs a command registered with `addCommand()` in the process named
    /// by `$process_type` and `$process_id`, and returns its result.
    #[php(defaults(json_decode = true))]
    pub fn command(
        &self,
        name: String,
        process_id: i64,
        process_type: i64,
        data: &Zval,
        json_decode: bool,
    ) -> Zval {
        let reactor_num = self
            .setting
            .borrow()
            .as_ref()
            .and_then(|z| z.array())
            .and_then(|a| a.get("reactor_num"))
            .and_then(Zval::long);
        super::server_command::command(
            self.started.get(),
            self.mode,
            reactor_num,
            &name,
            process_id,
            process_type,
            data,
            json_decode,
        )
    }

    /// The callback registered for `$event_name`, or null.
    pub fn get_callback(&self, event_name: String) -> Option<Zval> {
        let lower = event_name.to_ascii_lowercase();
        self.callbacks
            .borrow()
            .get(lower.as_str())
            .map(Zval::shallow_clone)
    }

    /// Forks the workers and serves until the server is stopped. Returns in
    /// the master only, after shutdown.
    pub fn start(self_: &mut ZendClassObject<Server>) -> PhpResult<bool> {
        let _taken = super::coroutine::LoopTakenOnReturn;
        let class = Self::class_name(&self_.std);
        if self_.started.get() {
            php_error(
                &ErrorType::Warning,
                &format!("The server is running, unable to execute {class}->start()"),
            );
            return Ok(false);
        }
        // A server runs once: its main socket went with the first start().
        if self_.listener.borrow().is_none() {
            php_error(
                &ErrorType::Warning,
                &format!("The server have been shutdown, unable to execute {class}->start()"),
            );
            return Ok(false);
        }
        if super::coroutine::in_event_loop() {
            php_error(
                &ErrorType::Warning,
                &format!("The event-loop has already been created, unable to start {class}"),
            );
            return Ok(false);
        }
        let is_http = self_.std.instance_of(super::http_server::http_server_ce());
        let is_ws = super::websocket_server::websocket_server_ce()
            .is_some_and(|ce| self_.std.instance_of(ce));
        let is_udp = matches!(
            self_.sock_type & 0xff,
            SWOOLE_SOCK_UDP | SWOOLE_SOCK_UDP6 | SWOOLE_SOCK_UNIX_DGRAM
        );
        let server_cbs = self_.callbacks.borrow().clone_map();
        let mut callbacks = Callbacks::take(&server_cbs);
        if is_ws {
            if callbacks.message.is_none() {
                return Err(swoole_exception("require onMessage callback", 0));
            }
        } else if is_http {
            if callbacks.request.is_none() {
                return Err(swoole_exception("require onRequest callback", 0));
            }
        } else if is_udp {
            if !server_cbs.contains_key("packet") {
                return Err(swoole_exception("require onPacket callback", 0));
            }
        } else if !server_cbs.contains_key("receive") {
            return Err(swoole_exception("require onReceive callback", 0));
        }
        let cfg = {
            let setting = self_.setting.borrow();
            settings::to_config(
                &class,
                setting.as_ref().and_then(Zval::array),
                self_.mode == SWOOLE_PROCESS,
            )?
        };
        let mut cfg = cfg;
        callbacks.ws_options(&mut cfg.ws, is_ws);
        if self_.mode == SWOOLE_PROCESS {
            callbacks.dispatch_func = self_
                .setting
                .borrow()
                .as_ref()
                .and_then(Zval::array)
                .and_then(|a| a.get("dispatch_func"))
                .filter(|z| z.is_callable())
                .map(Zval::shallow_clone);
            cfg.dispatch_func = callbacks.dispatch_func.is_some();
        }
        // `hook_flags`: applied here, before the workers fork (each inherits them).
        super::runtime::apply_server_setting(self_.setting.borrow().as_ref().and_then(Zval::array));
        if cfg.task_worker_num > 0 && callbacks.task.is_none() {
            return Err(swoole_exception("require 'onTask' callback", 0));
        }
        let main_opts = {
            let setting = self_.setting.borrow();
            settings::port_options(&class, setting.as_ref().and_then(Zval::array))?
        };
        let main_backlog = self_
            .setting
            .borrow()
            .as_ref()
            .and_then(Zval::array)
            .and_then(|a| a.get("backlog"))
            .and_then(Zval::long);
        // Every port: its socket, kind, options and callbacks.
        let states: Vec<Rc<RefCell<PortState>>> = self_.ports.borrow().clone();
        let mut ports = Vec::with_capacity(states.len());
        // What a port's ssl_* settings ask for and rustls cannot honour:
        // logged (like Swoole's warnings, to log_file) once the log is set up.
        let mut tls_warnings: Vec<String> = Vec::new();
        for (index, st) in states.iter().enumerate() {
            let mut st = st.borrow_mut();
            let own = match st.setting.as_ref().and_then(Zval::array) {
                Some(arr) => Some(settings::port_options("Swoole\\Server\\Port", Some(arr))?),
                None => None,
            };
            let mut opts = own.unwrap_or_else(|| main_opts.clone());
            let socket = if index == 0 {
                self_.listener.borrow_mut().take()
            } else {
                st.socket.take()
            };
            let Some(socket) = socket else {
                return Err(swoole_exception("the listening socket is gone", 0));
            };
            // `backlog`: the port's own, else the server's (Swoole listens
            // at start with it; the socket listened at 512 when it was made).
            let backlog = st
                .setting
                .as_ref()
                .and_then(Zval::array)
                .and_then(|a| a.get("backlog"))
                .and_then(Zval::long)
                .or(main_backlog);
            if let (Some(n), PortSocket::Tcp(l)) = (backlog, &socket) {
                listener::set_backlog(l, n);
            }
            // A port speaks HTTP with `open_http_protocol`, and HTTP plus the
            // WebSocket upgrade (on a WebSocket server) with `open_websocket_protocol`.
            let port_flag = |key: &str| {
                st.setting
                    .as_ref()
                    .and_then(Zval::array)
                    .and_then(|a| a.get(key))
                    .and_then(Zval::bool)
                    .unwrap_or(false)
            };
            // A listen() port that never had set() takes the server's
            // settings, as Swoole's start() does: on an HTTP or WebSocket
            // server it speaks HTTP (and the upgrade) too.
            let inherits = index > 0 && st.setting.is_none();
            let ws_port = port_flag("open_websocket_protocol");
            let http_wanted = (inherits && is_http) || port_flag("open_http_protocol") || ws_port;
            let kind = match &socket {
                PortSocket::Udp(_) => PortKind::Datagram,
                PortSocket::Tcp(_) if index == 0 && is_http => PortKind::Http,
                PortSocket::Tcp(_) if http_wanted => PortKind::Http,
                PortSocket::Tcp(_) | PortSocket::Dispatched(_) => PortKind::Stream,
            };
            // Every listen() port needs the callback of its kind, its own or
            // the server's (Swoole's start() checks each port so).
            let has_cb =
                |name: &str| st.callbacks.contains_key(name) || server_cbs.contains_key(name);
            if index > 0 && kind == PortKind::Datagram && !has_cb("packet") {
                return Err(swoole_exception("require onPacket callback", 0));
            }
            if index > 0 && kind == PortKind::Stream && !has_cb("receive") {
                return Err(swoole_exception("require onReceive callback", 0));
            }
            if st.sock_type & SWOOLE_SSL != 0 && kind != PortKind::Datagram {
                let setting = self_.setting.borrow();
                let main_arr = setting.as_ref().and_then(Zval::array);
                let own_arr = st.setting.as_ref().and_then(Zval::array);
                let arr = if index > 0 && settings::has_tls_cert(own_arr) {
                    own_arr
                } else {
                    main_arr
                };
                let mut t = settings::tls_settings(&class, arr)?;
                t.alpn_http1 = kind == PortKind::Http;
                t.alpn_h2 = kind == PortKind::Http && opts.http2.is_some();
                let (tls, warnings) = crate::engine::tls::build(&t)
                    .map_err(|e| swoole_exception(e.to_string(), 1019))?;
                tls_warnings.extend(warnings);
                opts.tls = Some(std::sync::Arc::new(tls));
            }
            st.started = true;
            let port_cbs = PortCallbacks::take(&st.callbacks, &server_cbs);
            // `open_websocket_protocol` on a port of a server that is no
            // WebSocket server: that port accepts upgrades (with its own
            // `handshake`, `open` and `message`), as in Swoole.
            if !is_ws && kind == PortKind::Http && index < 64 && ws_port {
                cfg.ws.ports |= 1 << index;
                if port_cbs.handshake.is_some() {
                    cfg.ws.handshake_ports |= 1 << index;
                }
            }
            callbacks.ports.push(port_cbs);
            ports.push(Port {
                index,
                kind,
                socket,
                opts,
            });
        }
        log::set_level(cfg.log_level);
        if let Some(f) = &cfg.log_file {
            log::set_file(Some(f))
                .map_err(|e| swoole_exception(format!("open log_file {f}: {e}"), 0))?;
        }
        if crate::engine::worker::dispatch::no_conn_events(&cfg) {
            // Swoole drops them: they could not be ordered with the messages.
            for (event, name) in [("connect", "onConnect"), ("close", "onClose")] {
                if server_cbs.contains_key(event) {
                    crate::rlog!(
                        Warning,
                        "Server::start_check(): cannot set '{name}' event when using dispatch_mode={}",
                        cfg.dispatch_mode
                    );
                }
            }
        }
        for w in tls_warnings {
            crate::rlog!(Warning, "{class}::start(): {w}");
        }
        self_.started.set(true);
        self_.fill_default_settings(&cfg);
        session::set_start(
            self_
                .setting
                .borrow()
                .as_ref()
                .and_then(Zval::array)
                .and_then(|a| a.get("start_session_id"))
                .and_then(Zval::long)
                .unwrap_or(0),
        );

        let obj: *mut ZendObject = &raw mut self_.std;
        let hooks = Rc::new(PhpHooks::new(obj, callbacks, &cfg));
        super::process::install_user_processes(
            self_
                .user_processes
                .borrow()
                .iter()
                .map(Zval::shallow_clone)
                .collect(),
        );
        // Unix ports: their paths for `server_addr`, and their files go
        // when the server stops (Swoole unlinks them when the port is freed).
        let unix_paths: Vec<(usize, String)> = states
            .iter()
            .enumerate()
            .filter_map(|(i, st)| {
                let st = st.borrow();
                is_unix_type(st.sock_type).then(|| (i, st.host.clone()))
            })
            .collect();
        listener::set_unix_paths(unix_paths.clone());
        let result = process::run_ports(cfg, ports, hooks);
        for (_, path) in &unix_paths {
            let _ = std::fs::remove_file(path);
        }
        process::set_user_processes(None);
        self_.started.set(false);
        result.map_err(|e| {
            swoole_exception(
                format!("failed to start server. Error: {e}"),
                e.os_code().unwrap_or(0),
            )
        })?;
        Ok(true)
    }

    /// Adds a user process, started and supervised with the workers.
    pub fn add_process(&self, process: &Zval) -> PhpResult<Zval> {
        let mut out = Zval::new();
        if self.started.get() {
            php_error(&ErrorType::Warning, "server is running, cannot add process");
            out.set_bool(false);
            return Ok(out);
        }
        let mut list = self.user_processes.borrow_mut();
        let id = super::process::check_for_server(process, list.len())?;
        list.push(process.shallow_clone());
        out.set_long(id);
        Ok(out)
    }

    /// `SWOOLE_WORKER_BUSY`, `SWOOLE_WORKER_IDLE`, or false.
    #[php(defaults(worker_id = -1))]
    pub fn get_worker_status(&self, worker_id: i64) -> Zval {
        super::process::worker_status(worker_id)
    }

    /// Stops the whole server: SIGTERM to the master.
    pub fn shutdown(&self) -> bool {
        let pid = process::master_pid();
        // SAFETY: kill() with a pid we started; no memory involved.
        pid > 0 && unsafe { libc::kill(pid, libc::SIGTERM) } == 0
    }

    /// Graceful reload: SIGUSR1 to the master, which forks a new process for
    /// every worker and stops each old one once its replacement is ready
    /// (SIGUSR2, task workers only, with `$only_reload_taskworker`).
    #[php(defaults(only_reload_taskworker = false))]
    pub fn reload(&self, only_reload_taskworker: bool) -> bool {
        let pid = process::master_pid();
        if pid <= 0 || !self.started.get() && worker::current_worker_id() < 0 {
            php_error(&ErrorType::Warning, "server is not running");
            return false;
        }
        let sig = if only_reload_taskworker {
            libc::SIGUSR2
        } else {
            libc::SIGUSR1
        };
        // SAFETY: kill() with the master's pid; no memory involved.
        unsafe { libc::kill(pid, sig) == 0 }
    }

    /// Swoole's server counters, read from shared memory, plus rswoole's
    /// `workers` list (per worker process: id, pid, requests, RSS).
    pub fn stats(&self) -> PhpResult<Zval> {
        let mut z = Zval::new();
        let Some(sh) = stats::shared() else {
            php_error(&ErrorType::Warning, "server is not running");
            z.set_bool(false);
            return Ok(z);
        };
        if process::master_pid() <= 0 {
            php_error(&ErrorType::Warning, "server is not running");
            z.set_bool(false);
            return Ok(z);
        }
        let ld = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed) as i64;
        let workers = stats::workers();
        let accept = ld(&sh.accept_count);
        let close = ld(&sh.close_count);
        let setting = |k: &str| {
            self.setting
                .borrow()
                .as_ref()
                .and_then(Zval::array)
                .and_then(|a| a.get(k))
                .and_then(Zval::long)
                .unwrap_or(0)
        };
        let worker_num = setting("worker_num");
        let task_worker_num = setting("task_worker_num");
        // Slots of task workers (ids from worker_num on) count busy tasks.
        let is_task = |w: &&stats::WorkerStat| {
            (w.worker_id as i64) >= worker_num
                && (w.worker_id as i64) < worker_num + task_worker_num
        };
        let concurrency: i64 = workers
            .iter()
            .filter(|w| !is_task(w))
            .map(|w| w.concurrency)
            .sum();
        let idle = workers
            .iter()
            .filter(|w| !is_task(w) && w.concurrency == 0)
            .count() as i64;
        let task_idle = workers
            .iter()
            .filter(|w| is_task(w) && w.concurrency == 0)
            .count() as i64;
        let mut ht = ZendHashTable::new();
        let mut put = |k: &str, v: i64| {
            let _ = ht.insert(k, v);
        };
        put("start_time", sh.start_time.load(Ordering::Relaxed));
        put("connection_num", (accept - close).max(0));
        put("abort_count", ld(&sh.abort_count));
        put("accept_count", accept);
        put("close_count", close);
        put("worker_num", worker_num);
        put("task_worker_num", task_worker_num);
        put("user_worker_num", 0);
        put("idle_worker_num", idle.min(worker_num.max(idle)));
        put("dispatch_count", ld(&sh.request_count));
        put("request_count", ld(&sh.request_count));
        put("response_count", ld(&sh.response_count));
        put("total_recv_bytes", ld(&sh.total_recv_bytes));
        put("total_send_bytes", ld(&sh.total_send_bytes));
        put("pipe_packet_msg_id", 0);
        put("concurrency", concurrency);
        if let Some(me) = stats::my_slot() {
            put(
                "worker_request_count",
                me.request_count.load(Ordering::Relaxed) as i64,
            );
            put(
                "worker_response_count",
                me.response_count.load(Ordering::Relaxed) as i64,
            );
            put(
                "worker_dispatch_count",
                me.request_count.load(Ordering::Relaxed) as i64,
            );
            put(
                "worker_concurrency",
                me.concurrency.load(Ordering::Relaxed).max(0),
            );
        }
        if task_worker_num > 0 {
            let queued = ld(&sh.task_queued);
            put("task_idle_worker_num", task_idle.min(task_worker_num));
            put("tasking_num", (queued - ld(&sh.task_taken)).max(0));
            put("task_count", queued);
        }
        put("coroutine_num", crate::coro::count() as i64);
        put("coroutine_peek_num", crate::coro::peak() as i64);
        let mut list = ZendHashTable::new();
        for w in workers {
            let mut e = ZendHashTable::new();
            let _ = e.insert("worker_id", w.worker_id as i64);
            let _ = e.insert("pid", w.pid as i64);
            let _ = e.insert("request_count", w.request_count as i64);
            let _ = e.insert("response_count", w.response_count as i64);
            let _ = e.insert("connection_num", w.connection_num as i64);
            let _ = e.insert("concurrency", w.concurrency);
            let _ = e.insert("rss", w.rss as i64);
            let _ = list.push(e);
        }
        let _ = ht.insert("workers", list);
        z.set_hashtable(ht);
        Ok(z)
    }

    /// Stops the calling worker, which the master then replaces.
    #[php(defaults(worker_id = -1))]
    pub fn stop(&self, worker_id: i64) -> bool {
        let me = worker::current_worker_id() as i64;
        if me < 0 || (worker_id >= 0 && worker_id != me) {
            php_error(
                &ErrorType::Warning,
                "rswoole: stop() can only stop the calling worker",
            );
            return false;
        }
        // The worker's serve loop drains, as after the master's SIGTERM.
        crate::engine::worker::halt::stop()
    }

    pub fn get_master_pid(&self) -> i64 {
        process::master_pid() as i64
    }

    pub fn get_manager_pid(&self) -> i64 {
        process::manager_pid() as i64
    }

    pub fn get_worker_id(&self) -> PhpResult<Zval> {
        let id = worker::current_worker_id();
        let mut z = Zval::new();
        if id < 0 {
            z.set_bool(false);
        } else {
            z.set_long(id as i64);
        }
        Ok(z)
    }

    /// The pid of worker `$worker_id` (-1: the calling process's worker),
    /// false if no such worker runs.
    #[php(defaults(worker_id = -1))]
    pub fn get_worker_pid(&self, worker_id: i64) -> Zval {
        let mut z = Zval::new();
        let me = worker::current_worker_id() as i64;
        if worker_id < 0 || worker_id == me {
            if me < 0 {
                z.set_long(process::master_pid() as i64);
            } else {
                z.set_long(std::process::id() as i64);
            }
            return z;
        }
        match crate::engine::shared::stats::workers()
            .iter()
            .find(|w| i64::from(w.worker_id) == worker_id)
        {
            Some(w) => z.set_long(i64::from(w.pid)),
            // Between its exit and its replacement's fork: the old pid, as
            // Swoole's worker keeps it.
            None => match usize::try_from(worker_id).map(crate::engine::shared::stats::last_pid) {
                Ok(pid) if pid > 0 => z.set_long(i64::from(pid)),
                _ => z.set_bool(false),
            },
        }
        z
    }

    #[php(getter, name = "setting")]
    pub fn prop_setting(&self) -> Zval {
        match self.setting.borrow().as_ref() {
            Some(z) => z.shallow_clone(),
            None => Zval::new(),
        }
    }

    #[php(getter, name = "host")]
    pub fn prop_host(&self) -> String {
        self.host.clone()
    }

    #[php(getter, name = "port")]
    pub fn prop_port(&self) -> i64 {
        self.port.get()
    }

    #[php(getter, name = "mode")]
    pub fn prop_mode(&self) -> i64 {
        self.mode
    }

    #[php(getter, name = "type")]
    pub fn prop_type(&self) -> i64 {
        self.sock_type
    }

    #[php(getter, name = "master_pid")]
    pub fn prop_master_pid(&self) -> i64 {
        process::master_pid() as i64
    }

    #[php(getter, name = "manager_pid")]
    pub fn prop_manager_pid(&self) -> i64 {
        process::manager_pid() as i64
    }

    #[php(getter, name = "worker_id")]
    pub fn prop_worker_id(&self) -> i64 {
        worker::current_worker_id() as i64
    }

    #[php(getter, name = "worker_pid")]
    pub fn prop_worker_pid(&self) -> i64 {
        if worker::current_worker_id() < 0 {
            0
        } else {
            std::process::id() as i64
        }
    }

    #[php(getter, name = "taskworker")]
    pub fn prop_taskworker(&self) -> bool {
        worker::is_task_worker()
    }

    /// True when the main port was created with `SWOOLE_SSL`.
    #[php(getter, name = "ssl")]
    pub fn prop_ssl(&self) -> bool {
        self.sock_type & SWOOLE_SSL != 0
    }

    /// Swoole's stats timer and admin server objects; rswoole has neither.
    #[php(getter, name = "stats_timer")]
    pub fn prop_stats_timer(&self) -> Zval {
        Zval::new()
    }

    #[php(getter, name = "admin_server")]
    pub fn prop_admin_server(&self) -> Zval {
        Zval::new()
    }

    /// Sends `$data` to connection `$fd` (routed to the worker that owns it).
    #[php(defaults(server_socket = -1))]
    pub fn send(&self, fd: &Zval, data: &Zval, server_socket: i64) -> bool {
        if let Some(path) = fd.string().filter(|p| p.starts_with('/')) {
            // A unix datagram peer, by its path (`$client['address']`).
            let Some(bytes) = zval_bytes(data) else {
                return false;
            };
            return match tcp::send_unix_dgram(&path, &bytes, server_socket as i32) {
                Ok(_) => true,
                Err(e) => {
                    if e.kind() != std::io::ErrorKind::WouldBlock {
                        php_error(&ErrorType::Warning, &format!("sendto({path}) failed: {e}"));
                    }
                    false
                }
            };
        }
        if fd.is_null() {
            php_error(&ErrorType::Warning, "fd can not be null");
            return false;
        }
        // Any other string is a number, as Swoole's `zval_get_long()`
        // reads it (an fd that went through `task()` arrives as "7").
        let fd = match fd.string() {
            Some(s) => s.trim().parse::<i64>().unwrap_or(0),
            None => match fd.long() {
                Some(fd) => fd,
                None => return false,
            },
        };
        let Some(bytes) = zval_bytes(data) else {
            php_error(&ErrorType::Warning, "the data must be a string");
            return false;
        };
        if bytes.is_empty() {
            super::errors::set_last_error(super::errors::SWOOLE_ERROR_NO_PAYLOAD);
            php_error(&ErrorType::Warning, "the data sent must not be empty");
            return false;
        }
        if fd <= 0 {
            php_error(&ErrorType::Warning, &format!("invalid fd[{fd}]"));
            return false;
        }
        // Raw bytes to any connection (a WebSocket one too: they go out
        // between whole frames, as Swoole sends them).
        let sent = loop {
            match conns::send_bounded(fd, bytes.clone()) {
                Ok(ok) => break ok,
                // Full: wait for room (send_yield) and send again, or
                // fail with Swoole's overflow warning and error.
                Err(flow) => {
                    if !super::http_response::overflow(fd, Some(flow)) {
                        return false;
                    }
                }
            }
        };
        if !sent {
            // As Swoole: no message (its log line is at trace level), the
            // error code says why.
            super::errors::set_last_error(super::errors::SWOOLE_ERROR_SESSION_NOT_EXIST);
            return false;
        }
        true
    }

    /// Sends a UDP datagram to `$ip:$port` from the server's UDP port.
    #[php(defaults(server_socket = -1))]
    pub fn sendto(&self, ip: String, port: i64, data: &Zval, server_socket: i64) -> bool {
        if ip.starts_with('/') {
            // A unix datagram peer's path, as in Swoole.
            let Some(bytes) = zval_bytes(data) else {
                return false;
            };
            return match tcp::send_unix_dgram(&ip, &bytes, server_socket as i32) {
                Ok(_) => true,
                Err(e) => {
                    if e.kind() != std::io::ErrorKind::WouldBlock {
                        php_error(&ErrorType::Warning, &format!("{e}"));
                    }
                    false
                }
            };
        }
        let Ok(addr) = ip.parse::<std::net::IpAddr>() else {
            php_error(&ErrorType::Warning, &format!("invalid IP address '{ip}'"));
            return false;
        };
        let Some(bytes) = zval_bytes(data) else {
            return false;
        };
        match tcp::send_to(
            std::net::SocketAddr::new(addr, port.clamp(0, 65535) as u16),
            &bytes,
            server_socket as i32,
        ) {
            Ok(_) => true,
            Err(e) => {
                php_error(&ErrorType::Warning, &format!("{e}"));
                false
            }
        }
    }

    /// Closes `$fd` once what was sent before is written (`$reset`: at once, RST).
    #[php(defaults(reset = false))]
    pub fn close(&self, fd: i64, reset: bool) -> bool {
        // A WebSocket connection gets its close frame first.
        let closed = super::websocket_server::close(fd) || conns::close(fd, reset);
        if !closed {
            super::errors::set_last_error(super::errors::SWOOLE_ERROR_SESSION_NOT_EXIST);
        }
        closed
    }

    pub fn exists(&self, fd: i64) -> bool {
        conns::exists(fd)
    }

    /// Alias of `exists()`; also true for an HTTP connection in the
    /// session table.
    pub fn exist(&self, fd: i64) -> bool {
        conns::exists(fd)
    }

    /// Binds connection `$fd` to `$uid` once (the binding is seen by every
    /// process); false when `$fd` is not open or is already bound.
    pub fn bind(&self, fd: i64, uid: i64) -> bool {
        if !self.started.get() {
            php_error(&ErrorType::Warning, "server is not running");
            return false;
        }
        if uid > u32::MAX as i64 || uid < i32::MIN as i64 {
            php_error(
                &ErrorType::Warning,
                &format!(
                    "uid can not be greater than {} or less than {}",
                    u32::MAX,
                    i32::MIN
                ),
            );
            return false;
        }
        // Swoole keeps the uid as a uint32.
        session::bind_uid(fd, uid as u32 as i64)
    }

    /// Sends `$length` bytes (0: to the end) of `$filename` from `$offset`
    /// on TCP connection `$conn_fd`.
    #[php(defaults(offset = 0, length = 0))]
    pub fn sendfile(&self, conn_fd: i64, filename: String, offset: i64, length: i64) -> bool {
        if !self.started.get() {
            php_error(&ErrorType::Warning, "server is not running");
            return false;
        }
        match file_slice(&filename, offset, length) {
            Ok(data) if data.is_empty() => true,
            Ok(data) => conns::send(conn_fd, data),
            Err(msg) => {
                php_error(&ErrorType::Warning, &msg);
                false
            }
        }
    }

    /// `send()` in a SWOOLE_BASE worker (Swoole refuses it elsewhere).
    pub fn sendwait(&self, conn_fd: i64, send_data: &Zval) -> bool {
        if !self.started.get() {
            php_error(&ErrorType::Warning, "server is not running");
            return false;
        }
        let data = zval_bytes(send_data).unwrap_or_default();
        if data.is_empty() {
            php_error(&ErrorType::Warning, "the data sent must not be empty");
            return false;
        }
        if self.mode == SWOOLE_PROCESS || crate::engine::worker::is_task_worker() {
            php_error(
                &ErrorType::Warning,
                "can only be used with base mode and must be within worker process",
            );
            return false;
        }
        conns::send(conn_fd, data)
    }

    /// `swoole_last_error()`.
    pub fn get_last_error(&self) -> i64 {
        super::errors::swoole_last_error()
    }

    /// `SWOOLE_WORKER_BUSY` (1) or `SWOOLE_WORKER_IDLE` (2) for worker
    /// `$worker_id` (-1: the calling one), false if no such worker runs.
    /// True when `$fd` is a WebSocket connection past its handshake.
    pub fn is_established(&self, fd: i64) -> bool {
        super::websocket_server::is_established(fd)
    }

    /// WebSocket: sends one frame to `$fd` (routed to the worker that owns it).
    #[php(defaults(opcode = 1, flags = 1))]
    pub fn push(&self, fd: i64, data: &Zval, opcode: i64, flags: i64) -> bool {
        super::websocket_server::push(fd, data, opcode, flags)
    }

    /// WebSocket: a close frame with `$code` and `$reason`, then the close.
    #[php(defaults(code = 1000, reason = String::new()))]
    pub fn disconnect(&self, fd: i64, code: i64, reason: String) -> bool {
        super::websocket_server::disconnect(fd, code, &reason)
    }

    #[php(defaults(is_protected = true))]
    pub fn protect(&self, fd: i64, is_protected: bool) -> bool {
        conns::protect(fd, is_protected)
    }

    pub fn pause(&self, fd: i64) -> bool {
        conns::set_paused(fd, true)
    }

    pub fn resume(&self, fd: i64) -> bool {
        conns::set_paused(fd, false)
    }

    /// Alias of `resume()`: starts reading a connection held by
    /// `enable_delay_receive`.
    pub fn confirm(&self, fd: i64) -> bool {
        conns::set_paused(fd, false)
    }

    /// Information on connection `$fd`, or false.
    #[php(defaults(reactor_id = -1, ignore_error = false))]
    pub fn get_client_info(&self, fd: i64, reactor_id: i64, ignore_error: bool) -> Zval {
        let _ = (reactor_id, ignore_error);
        client_info(fd)
    }

    /// Alias of `getClientInfo()`.
    #[php(name = "connection_info", defaults(reactor_id = -1, ignore_error = false))]
    pub fn connection_info(&self, fd: i64, reactor_id: i64, ignore_error: bool) -> Zval {
        let _ = (reactor_id, ignore_error);
        client_info(fd)
    }

    /// Up to `$find_count` connection ids above `$start_fd`, or false.
    #[php(defaults(start_fd = 0, find_count = 10))]
    pub fn get_client_list(&self, start_fd: i64, find_count: i64) -> Zval {
        client_list(start_fd, find_count)
    }

    #[php(name = "connection_list", defaults(start_fd = 0, find_count = 10))]
    pub fn connection_list(&self, start_fd: i64, find_count: i64) -> Zval {
        client_list(start_fd, find_count)
    }

    /// `$server->connections`: every open connection id.
    #[php(getter, name = "connections")]
    pub fn prop_connections(&self) -> ZBox<ZendHashTable> {
        connection_list(session::list())
    }

    /// Checks this worker's connections against `heartbeat_idle_time`;
    /// returns the idle ones (closed when `$if_close_connection`).
    #[php(defaults(if_close_connection = true))]
    pub fn heartbeat(&self, if_close_connection: bool) -> Zval {
        let idle = {
            let setting = self.setting.borrow();
            settings::to_config(
                "Swoole\\Server",
                setting.as_ref().and_then(Zval::array),
                false,
            )
            .ok()
            .and_then(|c| c.heartbeat())
            .map(|(_, idle)| idle)
        };
        let mut z = Zval::new();
        let Some(idle) = idle else {
            php_error(
                &ErrorType::Warning,
                "heartbeat_idle_time must be greater than 0",
            );
            z.set_bool(false);
            return z;
        };
        let fds = conns::idle_connections(idle, if_close_connection);
        let mut ht = ZendHashTable::new();
        for fd in fds {
            let _ = ht.push(fd);
        }
        z.set_hashtable(ht);
        z
    }

    /// Dispatches `$data` to a task worker; returns the task id or false.
    #[php(defaults(dst_worker_id = -1))]
    pub fn task(&self, data: &Zval, dst_worker_id: i64, finish_callback: Option<&Zval>) -> Zval {
        let cb = finish_callback
            .filter(|c| !c.is_null())
            .map(Zval::shallow_clone);
        let mut z = Zval::new();
        match server_task::send_task(data, dst_worker_id, cb, server_task::FLAG_NONBLOCK) {
            Some(id) => z.set_long(id),
            None => z.set_bool(false),
        }
        z
    }

    /// Dispatches a task and waits for its result (false on timeout).
    #[php(defaults(timeout = 0.5, dst_worker_id = -1))]
    pub fn taskwait(&self, data: &Zval, timeout: f64, dst_worker_id: i64) -> Zval {
        let r = server_task::wait_all(&[data], secs(timeout), dst_worker_id, false);
        r.into_iter().next().flatten().unwrap_or_else(|| {
            let mut z = Zval::new();
            z.set_bool(false);
            z
        })
    }

    /// Dispatches every task and waits; results by key (missing when timed out).
    #[php(defaults(timeout = 0.5))]
    pub fn task_wait_multi(&self, tasks: &ZendHashTable, timeout: f64) -> Zval {
        multi(tasks, timeout, false)
    }

    /// In a coroutine: dispatches every task and waits; false for a timed-out one.
    #[php(defaults(timeout = 0.5))]
    pub fn task_co(&self, tasks: &ZendHashTable, timeout: f64) -> Zval {
        multi(tasks, timeout, true)
    }

    /// In a task worker: sends the result of the running task.
    pub fn finish(&self, data: &Zval) -> bool {
        server_task::finish_current(data)
    }

    /// `onPipeMessage($server, $src_worker_id, $message)` in worker `$dst_worker_id`.
    pub fn send_message(&self, message: &Zval, dst_worker_id: i64) -> bool {
        let Some((bytes, flags)) = server_task::pack(message) else {
            return false;
        };
        if dst_worker_id < 0 || dst_worker_id as i32 == worker::current_worker_id() {
            php_error(&ErrorType::Warning, "can't send messages to self");
            return false;
        }
        let m = ipc::Msg {
            kind: ipc::Kind::Pipe,
            flags,
            src: 0,
            id: 0,
            arg: 0,
            data: bytes,
        };
        match ipc::send(dst_worker_id as usize, m) {
            Ok(()) => true,
            Err(e) => {
                php_error(&ErrorType::Warning, &format!("{e}"));
                false
            }
        }
    }

    /// Adds a port; returns its `Swoole\Server\Port`, or false.
    pub fn listen(
        self_: &ZendClassObject<Server>,
        host: String,
        port: i64,
        sock_type: i64,
    ) -> PhpResult<Zval> {
        Self::add_port(self_, host, port, sock_type)
    }

    /// Alias of `listen()` (Swoole spells it in lower case).
    #[php(name = "addlistener")]
    pub fn add_listener(
        self_: &ZendClassObject<Server>,
        host: String,
        port: i64,
        sock_type: i64,
    ) -> PhpResult<Zval> {
        Self::add_port(self_, host, port, sock_type)
    }

    /// `$server->ports`: every port, the main one first.
    #[php(getter, name = "ports")]
    pub fn prop_ports(&self) -> Zval {
        self.ensure_port_objects();
        let mut ht = ZendHashTable::new();
        for o in self.port_objects.borrow().iter() {
            let _ = ht.push(o.shallow_clone());
        }
        let mut z = Zval::new();
        z.set_hashtable(ht);
        z
    }
}

fn secs(t: f64) -> Duration {
    if t.is_finite() && t > 0.0 {
        Duration::from_secs_f64(t.min(86400.0 * 365.0))
    } else {
        Duration::from_secs(86400 * 365)
    }
}

/// `$length` bytes (0: the rest) of file `path` from `offset`, or Swoole's
/// warning text.
fn file_slice(path: &str, offset: i64, length: i64) -> Result<Bytes, String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).map_err(|e| format!("open({path}) failed: {e}"))?;
    let size = f
        .metadata()
        .map_err(|e| format!("fstat({path}) failed: {e}"))?
        .len() as i64;
    if offset < 0 || length < 0 || offset > size || (length > 0 && offset + length > size) {
        return Err(format!(
            "offset[{offset}] or length[{length}] is out of the file size[{size}]"
        ));
    }
    let len = if length == 0 { size - offset } else { length };
    f.seek(SeekFrom::Start(offset as u64))
        .map_err(|e| format!("lseek({path}) failed: {e}"))?;
    let mut buf = Vec::with_capacity(len as usize);
    f.take(len as u64)
        .read_to_end(&mut buf)
        .map_err(|e| format!("read({path}) failed: {e}"))?;
    Ok(Bytes::from(buf))
}

fn multi(tasks: &ZendHashTable, timeout: f64, false_for_missing: bool) -> Zval {
    let keys: Vec<ext_php_rs::types::ArrayKey> = tasks.iter().map(|(k, _)| k).collect();
    let vals: Vec<&Zval> = tasks.iter().map(|(_, v)| v).collect();
    let results = server_task::wait_all(&vals, secs(timeout), -1, true);
    let mut ht = ZendHashTable::new();
    for (k, r) in keys.into_iter().zip(results) {
        match r {
            Some(v) => {
                let _ = ht.insert(k, v);
            }
            None if false_for_missing => {
                let _ = ht.insert(k, false_zval());
            }
            None => {}
        }
    }
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

/// `connection_info()`'s keys, in its order.
const INFO_KEYS: [&str; 20] = [
    "server_port",
    "server_fd",
    "socket_fd",
    "socket_type",
    "remote_port",
    "remote_ip",
    "reactor_id",
    "worker_id",
    "connect_time",
    "last_time",
    "last_recv_time",
    "last_send_time",
    "last_dispatch_time",
    "close_errno",
    "recv_queued_bytes",
    "send_queued_bytes",
    "server_socket",
    "websocket_status",
    "ssl_client_cert",
    "uid",
];

/// `a` as dotted decimal in `buf` (what `Ipv4Addr`'s `Display` writes,
/// without the formatting machinery: ~1,500 instructions a call).
fn ipv4_text(a: std::net::Ipv4Addr, buf: &mut [u8; 15]) -> &[u8] {
    let mut n = 0;
    for (i, o) in a.octets().into_iter().enumerate() {
        if i > 0 {
            buf[n] = b'.';
            n += 1;
        }
        if o >= 100 {
            buf[n] = b'0' + o / 100;
            n += 1;
        }
        if o >= 10 {
            buf[n] = b'0' + o / 10 % 10;
            n += 1;
        }
        buf[n] = b'0' + o % 10;
        n += 1;
    }
    &buf[..n]
}

fn client_info(fd: i64) -> Zval {
    static KEYS: std::sync::OnceLock<super::zval::Keys> = std::sync::OnceLock::new();
    let Some(s) = session::get(fd) else {
        return false_zval();
    };
    let keys = KEYS.get_or_init(|| super::zval::Keys::new(&INFO_KEYS));
    let mut ht = ZendHashTable::with_capacity(INFO_KEYS.len() as u32);
    // An IPv4 client of a dual-stack `::` port shows as ::ffff:a.b.c.d, as
    // in Swoole; a unix-socket peer has no address.
    let unix = listener::is_unix_peer(&s.peer);
    let mut v4 = [0u8; 15];
    let ip: std::borrow::Cow<'_, [u8]> = match s.peer.ip() {
        _ if unix => std::borrow::Cow::Borrowed(b""),
        std::net::IpAddr::V4(a) => std::borrow::Cow::Borrowed(ipv4_text(a, &mut v4)),
        a => std::borrow::Cow::Owned(a.to_string().into_bytes()),
    };
    let sock_type = if unix {
        SWOOLE_SOCK_UNIX_STREAM
    } else if s.peer.is_ipv6() {
        SWOOLE_SOCK_TCP6
    } else {
        SWOOLE_SOCK_TCP
    };
    let last_recv = if s.last_us > 0 {
        s.last_us as f64 / 1e6
    } else {
        s.last_time as f64
    };
    let longs = [
        (0, s.server_port as i64),
        (1, 0),
        (2, fd),
        (3, sock_type),
        (4, s.peer.port() as i64),
    ];
    for (i, v) in longs {
        keys.add(&mut ht, i, long_zval(v));
    }
    keys.add(&mut ht, 5, bytes_zval(&ip));
    let rest = [
        (6, long_zval(s.worker as i64)),
        (7, long_zval(s.worker as i64)),
        (8, long_zval(s.connect_time)),
        (9, long_zval(s.last_time)),
        (10, double_zval(last_recv)),
        (11, double_zval(0.0)),
        (12, double_zval(last_recv)),
        (13, long_zval(0)),
        (14, long_zval(0)),
        (15, long_zval(0)),
        (16, long_zval(s.port_index as i64)),
    ];
    for (i, v) in rest {
        keys.add(&mut ht, i, v);
    }
    if s.ws_status > 0 {
        keys.add(&mut ht, 17, long_zval(s.ws_status as i64));
    }
    if let Some(cert) = crate::engine::tls::client_cert(fd) {
        keys.add(&mut ht, 18, bytes_zval(cert.as_bytes()));
    }
    let uid = session::uid(fd);
    if uid != 0 {
        keys.add(&mut ht, 19, long_zval(uid));
    }
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

fn client_list(start_fd: i64, find_count: i64) -> Zval {
    let list: Vec<i64> = session::list()
        .into_iter()
        .filter(|fd| *fd > start_fd)
        .take(find_count.clamp(0, 100) as usize)
        .collect();
    if list.is_empty() {
        return false_zval();
    }
    let mut ht = ZendHashTable::new();
    for fd in list {
        let _ = ht.push(fd);
    }
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

/// True for `SWOOLE_SOCK_UNIX_STREAM`/`_DGRAM` (flags such as SSL aside).
fn is_unix_type(sock_type: i64) -> bool {
    matches!(
        sock_type & 0xff,
        SWOOLE_SOCK_UNIX_STREAM | SWOOLE_SOCK_UNIX_DGRAM
    )
}

/// Binds a server or port socket of `sock_type` (TCP, TCP6, UDP, UDP6, the
/// unix stream and datagram types: `host` is then the path).
fn bind_port(host: &str, port: i64, sock_type: i64) -> PhpResult<PortSocket> {
    bind_port_raw(host, port, sock_type).map_err(|(msg, code)| swoole_exception(msg, code))
}

/// [`bind_port`] with the error as (message, errno).
fn bind_port_raw(host: &str, port: i64, sock_type: i64) -> Result<PortSocket, (String, i32)> {
    let base_type = sock_type & 0xff;
    if !matches!(
        base_type,
        SWOOLE_SOCK_TCP
            | SWOOLE_SOCK_TCP6
            | SWOOLE_SOCK_UDP
            | SWOOLE_SOCK_UDP6
            | SWOOLE_SOCK_UNIX_STREAM
            | SWOOLE_SOCK_UNIX_DGRAM
    ) {
        return Err((
            format!("socket type {sock_type} is not supported by rswoole yet (TCP, TCP6, UDP, UDP6 and the unix ones are)"),
            0,
        ));
    }
    let to_err = |e: crate::engine::Error| (e.to_string(), e.os_code().unwrap_or(0));
    if base_type == SWOOLE_SOCK_UNIX_STREAM {
        return listener::bind_unix_stream(host, listener::DEFAULT_BACKLOG)
            .map(PortSocket::Tcp)
            .map_err(to_err);
    }
    if base_type == SWOOLE_SOCK_UNIX_DGRAM {
        return listener::bind_unix_dgram(host)
            .map(PortSocket::Udp)
            .map_err(to_err);
    }
    if !(0..=65535).contains(&port) {
        return Err((
            format!("failed to listen server port[{host}:{port}], Error: Invalid argument[22]"),
            22,
        ));
    }
    let ipv6 = matches!(base_type, SWOOLE_SOCK_TCP6 | SWOOLE_SOCK_UDP6) || host.contains(':');
    if matches!(base_type, SWOOLE_SOCK_UDP | SWOOLE_SOCK_UDP6) {
        listener::bind_udp(host, port as u16, ipv6)
            .map(PortSocket::Udp)
            .map_err(to_err)
    } else {
        listener::bind_tcp(host, port as u16, ipv6, listener::DEFAULT_BACKLOG)
            .map(PortSocket::Tcp)
            .map_err(to_err)
    }
}

/// A callback map copied out of its `RefCell` (references added).
trait CloneMap {
    fn clone_map(&self) -> HashMap<&'static str, Zval>;
}

impl CloneMap for HashMap<&'static str, Zval> {
    fn clone_map(&self) -> HashMap<&'static str, Zval> {
        self.iter().map(|(k, v)| (*k, v.shallow_clone())).collect()
    }
}

impl Server {
    fn ensure_port_objects(&self) {
        let states = self.ports.borrow();
        let mut objs = self.port_objects.borrow_mut();
        while objs.len() < states.len() {
            let st = states[objs.len()].clone();
            let obj: ext_php_rs::boxed::ZBox<ZendObject> =
                ZendClassObject::new(PortObj::new(st)).into();
            let mut z = Zval::new();
            let _ = ext_php_rs::convert::IntoZval::set_zval(obj, &mut z, false);
            objs.push(z);
        }
    }

    fn add_port(
        self_: &ZendClassObject<Server>,
        host: String,
        port: i64,
        sock_type: i64,
    ) -> PhpResult<Zval> {
        if self_.started.get() {
            php_error(&ErrorType::Warning, "server is running, can't add listener");
            return Ok(false_zval());
        }
        let sock = match bind_port_raw(&host, port, sock_type) {
            Ok(s) => s,
            Err((msg, _)) => {
                // Swoole warns and returns false here (the constructor throws).
                php_error(&ErrorType::Warning, &msg);
                return Ok(false_zval());
            }
        };
        let real = sock.local_port() as i64;
        let st = Rc::new(RefCell::new(PortState::new(
            host,
            real,
            sock_type,
            Some(sock),
        )));
        st.borrow_mut().index = self_.ports.borrow().len();
        self_.ports.borrow_mut().push(st);
        self_.ensure_port_objects();
        Ok(self_
            .port_objects
            .borrow()
            .last()
            .map(Zval::shallow_clone)
            .unwrap_or_else(false_zval))
    }

    /// Swoole adds these to `$server->setting` at start when absent.
    fn fill_default_settings(&self, cfg: &crate::engine::config::ServerConfig) {
        let mut cur = self.setting.borrow_mut();
        let merged = cur.get_or_insert_with(|| {
            let mut z = Zval::new();
            z.set_hashtable(ZendHashTable::new());
            z
        });
        if let Some(arr) = merged.array_mut() {
            let defaults: [(&str, i64); 4] = [
                ("worker_num", cfg.worker_num as i64),
                ("task_worker_num", cfg.task_worker_num as i64),
                ("output_buffer_size", u32::MAX as i64),
                ("max_connection", cfg.max_connection as i64),
            ];
            for (k, v) in defaults {
                if arr.get(k).is_none() {
                    let _ = arr.insert(k, v);
                }
            }
        }
    }
}

/// The class entry of `Swoole\Server`.
pub fn server_ce() -> &'static ext_php_rs::zend::ClassEntry {
    Server::get_metadata().ce()
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Server>()
}

/// Connection ids under the keys Swoole's connection iterator gives them
/// (1, 2, ...: `iterator_to_array($server->connections)`).
pub fn connection_list(fds: Vec<i64>) -> ZBox<ZendHashTable> {
    let mut ht = ZendHashTable::with_capacity(fds.len() as u32);
    for (i, fd) in fds.into_iter().enumerate() {
        let _ = ht.insert_at_index(i as i64 + 1, fd);
    }
    ht
}
