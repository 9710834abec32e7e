//! `Swoole\Server`: construction (which binds, as Swoole does), `set()`,
//! `on()`, `start()` and the process properties. `Swoole\Http\Server` is an
//! internal subclass registered in `http_server.rs`; both share this state.
//!
//! Every method takes `&self` and keeps its `RefCell` borrows short: callbacks
//! started from `start()` call back into these methods on the same object.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::net::TcpListener;
use std::rc::Rc;
use std::sync::atomic::Ordering;

use ext_php_rs::class::RegisteredClass;
use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpResult;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, ZendObject, Zval};

use super::callbacks::{Callbacks, PhpHooks};
use super::constants::{SWOOLE_BASE, SWOOLE_PROCESS, SWOOLE_SOCK_TCP, SWOOLE_SOCK_TCP6};
use super::exception::swoole_exception;
use super::settings;
use crate::engine::{listener, log, process, stats, worker};

/// Event names `on()` accepts (Swoole 6's server and port events), lower-case.
pub const EVENTS: &[&str] = &[
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
    "connect",
    "receive",
    "close",
    "packet",
    "bufferfull",
    "bufferempty",
    "request",
    "handshake",
    "beforehandshakeresponse",
    "open",
    "message",
    "disconnect",
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
    listener: RefCell<Option<TcpListener>>,
    /// The merged array of every `set()` call: `$server->setting`.
    setting: RefCell<Option<Zval>>,
    /// Callbacks by lower-case event name.
    callbacks: RefCell<HashMap<&'static str, Zval>>,
    started: Cell<bool>,
}

impl Server {
    fn class_name(obj: &ZendObject) -> String {
        obj.get_class_name()
            .unwrap_or_else(|_| "Swoole\\Server".into())
    }
}

#[php_impl]
impl Server {
    #[php(defaults(port = 0, mode = 1, sock_type = 1))]
    pub fn __construct(host: String, port: i64, mode: i64, sock_type: i64) -> PhpResult<Self> {
        if mode != SWOOLE_BASE && mode != SWOOLE_PROCESS {
            return Err(PhpException::new(
                format!("invalid $mode parameters {mode}"),
                0,
                ext_php_rs::zend::ce::error(),
            ));
        }
        let base_type = sock_type & 0xff;
        if base_type != SWOOLE_SOCK_TCP && base_type != SWOOLE_SOCK_TCP6 {
            return Err(swoole_exception(
                format!("socket type {sock_type} is not supported by rswoole yet (only SWOOLE_SOCK_TCP and SWOOLE_SOCK_TCP6)"),
                0,
            ));
        }
        if !(0..=65535).contains(&port) {
            return Err(swoole_exception(
                format!("failed to listen server port[{host}:{port}], Error: Invalid argument[22]"),
                22,
            ));
        }
        let ipv6 = base_type == SWOOLE_SOCK_TCP6 || host.contains(':');
        let l = listener::bind_tcp(&host, port as u16, ipv6, listener::DEFAULT_BACKLOG)
            .map_err(|e| swoole_exception(e.to_string(), e.os_code().unwrap_or(0)))?;
        let real_port = l.local_addr().map(|a| a.port() as i64).unwrap_or(port);
        Ok(Server {
            host,
            port: Cell::new(real_port),
            mode,
            sock_type,
            listener: RefCell::new(Some(l)),
            setting: RefCell::new(None),
            callbacks: RefCell::new(HashMap::new()),
            started: Cell::new(false),
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
        let Some(name) = EVENTS.iter().find(|e| **e == lower) else {
            php_error(
                &ErrorType::Warning,
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
            let shown = callback
                .str()
                .map(str::to_string)
                .unwrap_or_else(|| "callback".into());
            php_error(
                &ErrorType::Warning,
                &format!("function '{shown}' is not callable"),
            );
            return false;
        }
        self.callbacks
            .borrow_mut()
            .insert(name, callback.shallow_clone());
        true
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
        let class = Self::class_name(&self_.std);
        if self_.started.get() {
            php_error(
                &ErrorType::Warning,
                &format!("The server is running, unable to execute {class}->start()"),
            );
            return Ok(false);
        }
        let is_http = self_.std.instance_of(super::http_server::http_server_ce());
        let callbacks = Callbacks::take(&self_.callbacks.borrow());
        if !is_http {
            return Err(swoole_exception(
                "Swoole\\Server with a raw TCP protocol (onReceive) is not implemented by rswoole yet; use Swoole\\Http\\Server",
                0,
            ));
        }
        if callbacks.request.is_none() {
            return Err(swoole_exception("require onRequest callback", 0));
        }
        let cfg = {
            let setting = self_.setting.borrow();
            settings::to_config(
                &class,
                setting.as_ref().and_then(Zval::array),
                self_.mode == SWOOLE_PROCESS,
            )?
        };
        let listener = self_
            .listener
            .borrow_mut()
            .take()
            .ok_or_else(|| swoole_exception("the listening socket is gone", 0))?;
        log::set_level(cfg.log_level);
        if let Some(f) = &cfg.log_file {
            log::set_file(Some(f))
                .map_err(|e| swoole_exception(format!("open log_file {f}: {e}"), 0))?;
        }
        self_.started.set(true);
        self_.fill_default_settings(&cfg);

        let obj: *mut ZendObject = &raw mut self_.std;
        let hooks = Rc::new(PhpHooks::new(obj, callbacks, &cfg));
        let result = process::run(cfg, listener, hooks);
        self_.started.set(false);
        result.map_err(|e| {
            swoole_exception(
                format!("failed to start server. Error: {e}"),
                e.os_code().unwrap_or(0),
            )
        })?;
        Ok(true)
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
        let concurrency: i64 = workers.iter().map(|w| w.concurrency).sum();
        let worker_num = self
            .setting
            .borrow()
            .as_ref()
            .and_then(Zval::array)
            .and_then(|a| a.get("worker_num"))
            .and_then(Zval::long)
            .unwrap_or(0);
        let idle = workers.iter().filter(|w| w.concurrency == 0).count() as i64;
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
        put("task_worker_num", 0);
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
        put("tasking_num", 0);
        put("coroutine_num", 0);
        put("coroutine_peek_num", 0);
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
    #[php(defaults(worker_id = -1, wait_event = false))]
    pub fn stop(&self, worker_id: i64, wait_event: bool) -> bool {
        let _ = wait_event;
        let me = worker::current_worker_id() as i64;
        if me < 0 || (worker_id >= 0 && worker_id != me) {
            php_error(
                &ErrorType::Warning,
                "rswoole: stop() can only stop the calling worker",
            );
            return false;
        }
        // SAFETY: raise() on our own process; the worker's SIGTERM handler drains it.
        unsafe { libc::raise(libc::SIGTERM) == 0 }
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

    pub fn get_worker_pid(&self) -> i64 {
        if worker::current_worker_id() < 0 {
            return process::master_pid() as i64;
        }
        std::process::id() as i64
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
        false
    }
}

impl Server {
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
                ("task_worker_num", 0),
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
