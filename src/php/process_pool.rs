//! `Swoole\Process\Pool` and the `SWOOLE_IPC_*` constants: a fixed number
//! of worker processes supervised by `engine::proc::pool`, each running
//! `workerStart` and, with an IPC mode, handing each message (its Unix
//! socket, a TCP/Unix connection, or the System V queue) to `message`.
//! `Swoole\Process\Manager` is plain PHP over this class (`library.php`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;
use std::time::Duration;

use ext_php_rs::convert::IntoZval;
use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpResult;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, ZendObject, Zval};

use super::boundary::{self, CallError};
use super::coroutine::{self, Job};
use super::exception::{swoole_exception, type_error};
use super::process::{flush_output, Process};
use crate::engine::proc::pool::{self, PoolConfig, PoolHooks};
use crate::engine::proc::user::{self as up, MsgQueue};
use crate::engine::rt::event_loop;

pub const SWOOLE_IPC_NONE: i64 = 0;
pub const SWOOLE_IPC_UNIXSOCK: i64 = 1;
pub const SWOOLE_IPC_MSGQUEUE: i64 = 2;
pub const SWOOLE_IPC_SOCKET: i64 = 3;

/// Largest message a `SWOOLE_IPC_SOCKET` client may send.
const SOCKET_MESSAGE_MAX: usize = 8 << 20;

fn warn(msg: &str) {
    php_error(&ErrorType::Warning, msg);
}

const EVENTS: &[&str] = &[
    "workerstart",
    "workerstop",
    "workerexit",
    "message",
    "start",
    "shutdown",
];

#[php_class]
#[php(name = "Swoole\\Process\\Pool")]
pub struct Pool {
    worker_num: usize,
    ipc_type: i64,
    msgqueue_key: i64,
    enable_coroutine: Cell<bool>,
    max_wait_time: Cell<f64>,
    callbacks: RefCell<HashMap<&'static str, Zval>>,
    /// `listen()`: the socket every worker accepts from.
    listener: RefCell<Option<socket2::Socket>>,
    started: Cell<bool>,
    /// The pool ran `start()` in this process (master, or a worker).
    master_pid: Cell<i64>,
    worker_id: Cell<i64>,
    worker_pid: Cell<i64>,
    /// `SWOOLE_IPC_UNIXSOCK`: one datagram socket pair per worker
    /// (master end, worker end), made before the first fork.
    pipes: RefCell<Vec<(RawFd, RawFd)>>,
    /// `getProcess()` objects, by worker id.
    processes: RefCell<HashMap<usize, Zval>>,
    /// `SWOOLE_IPC_SOCKET`: what `write()` gathered for the current client.
    reply: RefCell<Option<Vec<u8>>>,
    queue: Cell<Option<MsgQueue>>,
    detached: Cell<bool>,
    /// `stop()` or `shutdown()` in this process ended its running state.
    stopped: Cell<bool>,
}

impl Pool {
    fn callback(&self, name: &str) -> Option<Zval> {
        self.callbacks.borrow().get(name).map(Zval::shallow_clone)
    }

    fn in_worker(&self) -> bool {
        self.worker_id.get() >= 0
    }
}

/// The engine's view of a started pool: raw pointers to the PHP object,
/// which the blocked `start()` call keeps alive in every process.
struct PhpPool {
    obj: *mut ZendObject,
    pool: *const Pool,
}

impl PhpPool {
    fn pool(&self) -> &Pool {
        // SAFETY: see the type comment.
        unsafe { &*self.pool }
    }

    fn this(&self) -> Zval {
        let mut z = Zval::new();
        // SAFETY: see the type comment; set_object adds a reference.
        z.set_object(unsafe { &mut *self.obj });
        z
    }

    /// Calls `name` with ($pool, ...extra); a coroutine when enabled.
    fn fire(&self, name: &str, extra: Vec<Zval>, coroutine: bool) -> Result<(), CallError> {
        let Some(cb) = self.pool().callback(name) else {
            return Ok(());
        };
        let mut args = vec![self.this()];
        args.extend(extra);
        if coroutine {
            let _ = coroutine::spawn(Job {
                callable: cb,
                args,
                done: None,
            });
            Ok(())
        } else {
            boundary::call(&cb, &mut args).map(|_| ())
        }
    }

    fn worker_body(&self, id: usize) -> i32 {
        let p = self.pool();
        coroutine::init();
        p.worker_id.set(id as i64);
        p.worker_pid.set(std::process::id() as i64);
        pool::set_worker_pid(id);
        p.started.set(true);
        // Other workers' Process objects were the parent's.
        p.processes.borrow_mut().clear();
        let co = p.enable_coroutine.get();
        let has_message = p.callbacks.borrow().contains_key("message");
        let mut idz = Zval::new();
        idz.set_long(id as i64);
        if let Err(e) = self.fire("workerstart", vec![idz], co) {
            return exit_code(e);
        }
        // As Swoole: SIGTERM stops the worker gracefully only once
        // workerStart returned, and only with messages or coroutines;
        // otherwise it ends the worker (the default action).
        let stop_fd = if has_message || co {
            let fd = pool::worker_setup();
            // A `Process::signal(SIGTERM, ...)` set in workerStart keeps
            // the signal, as in Swoole (its callback decides how to stop).
            super::process::reclaim_signal(libc::SIGTERM);
            super::process::reclaim_signal(libc::SIGINT);
            fd
        } else {
            -1
        };
        // `workerExit`, as Swoole: at the end of every loop round once the
        // worker is stopping, until its coroutines are done.
        let exit_rounds = Rc::new(Cell::new(None::<u64>));
        if co {
            let me = PhpPool {
                obj: self.obj,
                pool: self.pool,
            };
            let id = id as i64;
            let rounds = exit_rounds.clone();
            let on_round: Box<dyn Fn()> = Box::new(move || {
                let mut idz = Zval::new();
                idz.set_long(id);
                let _ = me.fire("workerexit", vec![idz], false);
                rounds.set(Some(event_loop::activity()));
            });
            spawn_stop_watch(
                stop_fd,
                Duration::from_secs_f64(p.max_wait_time.get()),
                p.callback("workerexit").map(|_| on_round),
            );
        }
        let result = if p.ipc_type != SWOOLE_IPC_NONE && has_message {
            self.message_loop(id, stop_fd)
        } else if co || event_loop::live_tasks() > 0 {
            coroutine::run_loop();
            Ok(())
        } else {
            Ok(())
        };
        // The last round (the one the coroutines ended in) gets its call too.
        if exit_rounds
            .get()
            .is_some_and(|seen| seen != event_loop::activity())
        {
            let mut idz = Zval::new();
            idz.set_long(id as i64);
            let _ = self.fire("workerexit", vec![idz], false);
        }
        if let Err(e) = result {
            return exit_code(e);
        }
        if p.detached.get() {
            return 0;
        }
        p.stopped.set(true);
        let mut idz = Zval::new();
        idz.set_long(id as i64);
        if let Err(e) = self.fire("workerstop", vec![idz], false) {
            return exit_code(e);
        }
        0
    }

    /// One message to `message` (in a coroutine, run to its end, when enabled).
    fn deliver(&self, data: Vec<u8>) -> Result<(), CallError> {
        let mut z = Zval::new();
        z.set_binary(data);
        let co = self.pool().enable_coroutine.get();
        self.fire("message", vec![z], co)?;
        if co {
            coroutine::run_loop();
        }
        Ok(())
    }

    /// `enable_coroutine` with `SWOOLE_IPC_UNIXSOCK`: messages are read on
    /// the event loop, each delivered in its own coroutine, so coroutines
    /// started in `workerStart` (a `Co::sleep()` between sends) keep
    /// running, as in Swoole's reactor. Ends when the worker is asked to
    /// stop and its coroutines are done.
    fn coroutine_message_loop(&self, fd: RawFd) -> Result<(), CallError> {
        struct Fd(RawFd);
        impl AsRawFd for Fd {
            fn as_raw_fd(&self) -> RawFd {
                self.0
            }
        }
        let failed: Rc<Cell<Option<CallError>>> = Rc::new(Cell::new(None));
        let me = PhpPool {
            obj: self.obj,
            pool: self.pool,
        };
        let fail = failed.clone();
        let reader = event_loop::spawn(async move {
            // SAFETY: the pool's pipe stays open until the worker process
            // ends; this task is aborted before that.
            let Ok(pipe) = (unsafe { tokio::io::unix::AsyncFd::register(Fd(fd)) }) else {
                return;
            };
            while me.running() {
                tokio::select! {
                    r = pipe.readable() => {
                        let Ok(mut g) = r else { return };
                        loop {
                            match up::recv_datagram(fd) {
                                Ok(buf) => {
                                    if let Err(e) = me.deliver(buf) {
                                        fail.set(Some(e));
                                        event_loop::request_exit();
                                        return;
                                    }
                                }
                                Err(_) => {
                                    g.clear_ready();
                                    break;
                                }
                            }
                        }
                    }
                    // The stop watch owns the stop pipe; look at the
                    // stopping flag it sets now and then.
                    _ = tokio::time::sleep(Duration::from_millis(100)) => {}
                }
            }
        });
        coroutine::run_loop();
        reader.abort();
        match failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn running(&self) -> bool {
        let p = self.pool();
        !pool::worker_stopping() && !p.detached.get() && !p.stopped.get()
    }

    fn message_loop(&self, id: usize, stop_fd: RawFd) -> Result<(), CallError> {
        let p = self.pool();
        match p.ipc_type {
            SWOOLE_IPC_UNIXSOCK if p.enable_coroutine.get() => {
                let fd = p.pipes.borrow().get(id).map(|e| e.1).unwrap_or(-1);
                self.coroutine_message_loop(fd)?;
            }
            SWOOLE_IPC_UNIXSOCK => {
                let fd = p.pipes.borrow().get(id).map(|e| e.1).unwrap_or(-1);
                while self.running() {
                    let ready = up::poll_readable(&[fd, stop_fd], 1000);
                    if ready[0] {
                        if let Ok(buf) = up::recv_datagram(fd) {
                            self.deliver(buf)?;
                        }
                    }
                }
            }
            SWOOLE_IPC_MSGQUEUE => {
                let Some(q) = p.queue.get() else {
                    return Ok(());
                };
                while self.running() {
                    match q.pop(0, up::MSGQUEUE_MAX) {
                        Ok(buf) => self.deliver(buf)?,
                        Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                        Err(_) => std::thread::sleep(Duration::from_millis(100)),
                    }
                }
            }
            SWOOLE_IPC_SOCKET => {
                let lfd = p
                    .listener
                    .borrow()
                    .as_ref()
                    .map(|s| s.as_raw_fd())
                    .unwrap_or(-1);
                up::set_nonblocking(lfd, true);
                while self.running() {
                    let ready = up::poll_readable(&[lfd, stop_fd], 1000);
                    if !ready[0] {
                        continue;
                    }
                    // SAFETY: accept() on our listening socket; no address wanted.
                    let conn =
                        unsafe { libc::accept(lfd, std::ptr::null_mut(), std::ptr::null_mut()) };
                    if conn < 0 {
                        continue;
                    }
                    up::set_nonblocking(conn, false);
                    up::set_timeout(conn, 5.0);
                    if let Some(msg) = read_framed(conn) {
                        p.reply.replace(Some(Vec::new()));
                        let r = self.deliver(msg);
                        if let Some(out) = p.reply.take() {
                            if !out.is_empty() {
                                let mut framed = (out.len() as u32).to_be_bytes().to_vec();
                                framed.extend_from_slice(&out);
                                let _ = up::write_fd(conn, &framed);
                            }
                        }
                        up::close_fd(conn);
                        r?;
                    } else {
                        up::close_fd(conn);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// One `SWOOLE_IPC_SOCKET` message: a 4-byte big-endian length, then the data.
fn read_framed(fd: RawFd) -> Option<Vec<u8>> {
    let head = read_exact(fd, 4)?;
    let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
    if len > SOCKET_MESSAGE_MAX {
        return None;
    }
    read_exact(fd, len)
}

fn read_exact(fd: RawFd, n: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let chunk = up::read_fd(fd, n - out.len()).ok()?;
        if chunk.is_empty() {
            return None;
        }
        out.extend_from_slice(&chunk);
    }
    Some(out)
}

/// In a coroutine worker: after SIGTERM (or `stop()`) `workerRunning` is
/// false, so the coroutines can finish and the loop end by itself; what is
/// still running after `max_wait` is left behind (the loop is stopped).
fn spawn_stop_watch(stop_fd: RawFd, max_wait: Duration, on_round: Option<Box<dyn Fn()>>) {
    if stop_fd < 0 {
        return;
    }
    struct Fd(RawFd);
    impl AsRawFd for Fd {
        fn as_raw_fd(&self) -> RawFd {
            self.0
        }
    }
    event_loop::spawn_untracked(async move {
        // SAFETY: the worker's stop pipe stays open until the process ends.
        let Ok(afd) = (unsafe { tokio::io::unix::AsyncFd::register(Fd(stop_fd)) }) else {
            return;
        };
        loop {
            if pool::worker_stopping() {
                let deadline = tokio::time::Instant::now() + max_wait;
                if let Some(f) = &on_round {
                    // Once now (the round SIGTERM ended), then after every
                    // round until the deadline.
                    loop {
                        f();
                        let seen = event_loop::activity();
                        if tokio::time::timeout_at(deadline, event_loop::next_round(seen))
                            .await
                            .is_err()
                        {
                            break;
                        }
                    }
                } else {
                    tokio::time::sleep_until(deadline).await;
                }
                event_loop::request_exit();
                return;
            }
            let Ok(mut g) = afd.readable().await else {
                return;
            };
            g.clear_ready();
        }
    });
}

fn exit_code(e: CallError) -> i32 {
    match e {
        CallError::Exit(c) | CallError::Fatal(c) => c,
        CallError::Exception | CallError::Unwind => 255,
    }
}

impl PoolHooks for PhpPool {
    fn run_events(&self, max: Duration) -> bool {
        event_loop::run_for(max)
    }

    fn on_start(&self) {
        let p = self.pool();
        p.master_pid.set(std::process::id() as i64);
        let _ = self.fire("start", Vec::new(), false);
    }

    fn on_shutdown(&self) {
        self.pool().stopped.set(true);
        let _ = self.fire("shutdown", Vec::new(), false);
    }

    fn run_worker(&self, id: usize) -> ! {
        crate::engine::worker::forget_worker_id();
        let me = PhpPool {
            obj: self.obj,
            pool: self.pool,
        };
        up::run_child(Box::new(move || me.worker_body(id)), Box::new(flush_output))
    }
}

#[php_impl]
impl Pool {
    #[php(defaults(ipc_type = 0, msgqueue_key = 0, enable_coroutine = false))]
    pub fn __construct(
        worker_num: i64,
        ipc_type: i64,
        msgqueue_key: i64,
        enable_coroutine: bool,
    ) -> PhpResult<Self> {
        if worker_num <= 0 {
            return Err(swoole_exception(
                "the parameter $worker_num must be greater than 0",
                0,
            ));
        }
        Ok(Pool {
            worker_num: worker_num as usize,
            ipc_type,
            msgqueue_key,
            enable_coroutine: Cell::new(enable_coroutine),
            max_wait_time: Cell::new(3.0),
            callbacks: RefCell::new(HashMap::new()),
            listener: RefCell::new(None),
            started: Cell::new(false),
            master_pid: Cell::new(-1),
            worker_id: Cell::new(-1),
            worker_pid: Cell::new(-1),
            pipes: RefCell::new(Vec::new()),
            processes: RefCell::new(HashMap::new()),
            reply: RefCell::new(None),
            queue: Cell::new(None),
            detached: Cell::new(false),
            stopped: Cell::new(false),
        })
    }

    pub fn __destruct(&self) {}

    #[php(getter, name = "master_pid")]
    pub fn prop_master_pid(&self) -> i64 {
        self.master_pid.get()
    }

    #[php(getter, name = "workerPid")]
    pub fn prop_worker_pid(&self) -> i64 {
        self.worker_pid.get()
    }

    #[php(getter, name = "workerId")]
    pub fn prop_worker_id(&self) -> i64 {
        self.worker_id.get()
    }

    #[php(getter, name = "workers")]
    pub fn prop_workers(&self) -> Option<Vec<i64>> {
        None
    }

    #[php(getter, name = "workerRunning")]
    pub fn prop_worker_running(&self) -> bool {
        !(self.in_worker() && (pool::worker_stopping() || self.stopped.get()))
    }

    #[php(getter, name = "running")]
    pub fn prop_running(&self) -> bool {
        !(self.stopped.get() || self.in_worker() && pool::worker_stopping())
    }

    pub fn set(&self, settings: &ZendHashTable) {
        if let Some(v) = settings.get("enable_coroutine") {
            self.enable_coroutine
                .set(v.bool().unwrap_or_else(|| v.long().is_some_and(|n| n != 0)));
        }
        if let Some(v) = settings.get("max_wait_time") {
            if let Some(t) = v.double().or_else(|| v.long().map(|n| n as f64)) {
                self.max_wait_time.set(t.max(0.0));
            }
        }
    }

    pub fn on(&self, name: String, callback: &Zval) -> PhpResult<bool> {
        if !callback.is_callable() {
            return Err(type_error(format!(
                "Swoole\\Process\\Pool::on(): Argument #2 ($callback) must be a valid callback, {}",
                coroutine::callable_problem(callback)
            )));
        }
        if self.started.get() {
            warn("process pool is started. unable to register event callback function");
            return Ok(false);
        }
        let lower = name.to_ascii_lowercase();
        let Some(key) = EVENTS.iter().find(|e| **e == lower) else {
            warn(&format!("unknown event type[{name}]"));
            return Ok(false);
        };
        self.callbacks
            .borrow_mut()
            .insert(key, callback.shallow_clone());
        Ok(true)
    }

    #[php(defaults(port = 0, backlog = 2048))]
    pub fn listen(&self, host: String, port: i64, backlog: i64) -> bool {
        if self.started.get() {
            warn("process pool is started. unable to listen");
            return false;
        }
        if self.ipc_type != SWOOLE_IPC_SOCKET {
            warn("unsupported ipc type");
            return false;
        }
        let backlog = backlog.clamp(1, i32::MAX as i64) as i32;
        let sock = if let Some(path) = host.strip_prefix("unix:") {
            let _ = std::fs::remove_file(path);
            socket2::SockAddr::unix(path).and_then(|addr| {
                let s = socket2::Socket::new(socket2::Domain::UNIX, socket2::Type::STREAM, None)?;
                s.bind(&addr)?;
                Ok(s)
            })
        } else {
            let ip: std::net::IpAddr = match host.parse() {
                Ok(ip) => ip,
                Err(_) => return false,
            };
            let addr = std::net::SocketAddr::new(ip, port as u16);
            socket2::Socket::new(
                socket2::Domain::for_address(addr),
                socket2::Type::STREAM,
                None,
            )
            .and_then(|s| {
                s.set_reuse_address(true)?;
                s.bind(&addr.into())?;
                Ok(s)
            })
        };
        match sock.and_then(|s| s.listen(backlog).map(|_| s)) {
            Ok(s) => {
                *self.listener.borrow_mut() = Some(s);
                true
            }
            Err(_) => false,
        }
    }

    /// `$data` is a binary string (the argument layer has coerced scalars).
    pub fn write(&self, data: &Zval) -> bool {
        let data = super::process::data_bytes(data).unwrap_or_default();
        if self.ipc_type != SWOOLE_IPC_SOCKET {
            warn("unsupported ipc type");
            return false;
        }
        if data.is_empty() {
            return false;
        }
        match self.reply.borrow_mut().as_mut() {
            Some(buf) => {
                buf.extend_from_slice(&data);
                true
            }
            None => false,
        }
    }

    pub fn send_message(&self, data: &Zval, dst_worker_id: i64) -> bool {
        let data = super::process::data_bytes(data).unwrap_or_default();
        if !self.started.get() {
            warn("process pool is not started");
            return false;
        }
        if self.ipc_type != SWOOLE_IPC_UNIXSOCK {
            warn("unsupported ipc type");
            return false;
        }
        let fd = self
            .pipes
            .borrow()
            .get(dst_worker_id.max(0) as usize)
            .map(|e| e.0)
            .filter(|_| dst_worker_id >= 0);
        match fd {
            Some(fd) => up::write_fd(fd, &data).is_ok(),
            None => false,
        }
    }

    pub fn detach(&self) -> bool {
        if !self.in_worker() || self.detached.get() {
            return false;
        }
        if pool::detach() {
            self.detached.set(true);
            true
        } else {
            false
        }
    }

    #[php(defaults(work_id = -1))]
    pub fn get_process(&self, work_id: i64) -> PhpResult<Zval> {
        let mut out = Zval::new();
        out.set_bool(false);
        if !self.started.get() {
            return Ok(out);
        }
        let id = if work_id >= 0 {
            work_id
        } else {
            self.worker_id.get()
        };
        if id < 0 || id as usize >= self.worker_num {
            warn(&format!("invalid worker_id[{id}]"));
            return Ok(out);
        }
        let me = id == self.worker_id.get();
        let pid = if me {
            Some(std::process::id() as i64)
        } else {
            pool::worker_pid(id as usize).map(i64::from)
        };
        if let Some(z) = self.processes.borrow().get(&(id as usize)) {
            if let Some(p) = super::process::from_zval(z) {
                p.set_pid(pid);
            }
            return Ok(z.shallow_clone());
        }
        let ends = self.pipes.borrow().get(id as usize).copied();
        let p = Process::shared(self.worker_id.get().max(0), pid, ends, me, self.queue.get());
        let z = ZendClassObject::new(p).into_zval(false)?;
        self.processes
            .borrow_mut()
            .insert(id as usize, z.shallow_clone());
        Ok(z)
    }

    pub fn start(self_: &mut ZendClassObject<Pool>) -> PhpResult<Zval> {
        let _taken = super::coroutine::LoopTakenOnReturn;
        let mut out = Zval::new();
        if self_.started.get() {
            warn("process pool is started. unable to execute Swoole\\Process\\Pool->start");
            out.set_bool(false);
            return Ok(out);
        }
        let has = |k: &str| self_.callbacks.borrow().contains_key(k);
        if self_.ipc_type != SWOOLE_IPC_NONE && !has("message") && !has("workerstart") {
            warn("require onWorkerStart or onMessage callback");
            out.set_bool(false);
            return Ok(out);
        }
        if self_.ipc_type == SWOOLE_IPC_NONE && !has("workerstart") {
            warn("require onWorkerStart callback");
            out.set_bool(false);
            return Ok(out);
        }
        if has("workerexit") && !self_.enable_coroutine.get() {
            return Err(swoole_exception(
                "cannot set onWorkerExit without enable_coroutine",
                0,
            ));
        }
        match self_.ipc_type {
            SWOOLE_IPC_UNIXSOCK => {
                let mut pipes = Vec::new();
                for _ in 0..self_.worker_num {
                    match up::socket_pair(false) {
                        Ok(p) => pipes.push(p),
                        Err(e) => {
                            for (a, b) in pipes {
                                up::close_fd(a);
                                up::close_fd(b);
                            }
                            return Err(swoole_exception(format!("socketpair() failed: {e}"), 0));
                        }
                    }
                }
                *self_.pipes.borrow_mut() = pipes;
            }
            SWOOLE_IPC_MSGQUEUE => match MsgQueue::open(self_.msgqueue_key, -1) {
                Ok(q) => self_.queue.set(Some(q)),
                Err(e) => {
                    return Err(swoole_exception(format!("msgget() failed: {e}"), 0));
                }
            },
            SWOOLE_IPC_SOCKET if self_.listener.borrow().is_none() => {
                warn("must listen() a socket first");
                out.set_bool(false);
                return Ok(out);
            }
            _ => {}
        }
        self_.started.set(true);
        self_.stopped.set(false);
        let hooks = PhpPool {
            obj: &raw mut self_.std,
            pool: &**self_,
        };
        let cfg = PoolConfig {
            worker_num: self_.worker_num,
            max_wait: Duration::from_secs_f64(self_.max_wait_time.get()),
        };
        let r = pool::run(&cfg, &hooks);
        self_.started.set(false);
        self_.stopped.set(true);
        for (a, b) in std::mem::take(&mut *self_.pipes.borrow_mut()) {
            up::close_fd(a);
            up::close_fd(b);
        }
        if let Err(e) = r {
            warn(&format!("{e}"));
            out.set_bool(false);
        }
        Ok(out)
    }

    pub fn stop(&self) {
        if self.in_worker() {
            self.stopped.set(true);
            pool::worker_stop();
            event_loop::request_exit();
        }
    }

    pub fn shutdown(&self) -> PhpResult<bool> {
        if !self.started.get() {
            return Err(swoole_exception("the process pool was not started", 0));
        }
        if self.in_worker() {
            let master = pool::master_pid();
            let master = if master > 0 {
                master
            } else {
                self.master_pid.get() as i32
            };
            return Ok(up::kill(master, libc::SIGTERM).is_ok());
        }
        pool::request_stop();
        Ok(true)
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module
        .class::<Pool>()
        .constant(("SWOOLE_IPC_NONE", SWOOLE_IPC_NONE, &[]))
        .constant(("SWOOLE_IPC_UNIXSOCK", SWOOLE_IPC_UNIXSOCK, &[]))
        .constant(("SWOOLE_IPC_MSGQUEUE", SWOOLE_IPC_MSGQUEUE, &[]))
        .constant(("SWOOLE_IPC_SOCKET", SWOOLE_IPC_SOCKET, &[]))
        .constant(("SWOOLE_IPC_UNSOCK", 1i64, &[]))
        .constant(("SWOOLE_IPC_PREEMPTIVE", 3i64, &[]))
}
