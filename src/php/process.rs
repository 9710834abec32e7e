//! `Swoole\Process`: a child process forked by `start()`, with its pipe
//! (a socket pair), System V message queue, and the static helpers (`wait`,
//! `kill`, `signal`, `alarm`, `daemon`, affinity). The plumbing is in
//! `engine::proc::user`; the child runs on a fresh thread (see there).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::os::fd::RawFd;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpResult;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, ZendObject, Zval};

use super::boundary::{self, CallError};
use super::coroutine::{self, Job};
use super::exception::type_error;
use crate::engine::proc::user::{self as up, Forked, MsgQueue};
use crate::engine::{rt::event_loop, rt::timer};

extern "C" {
    // ZEND_API const char *zend_get_executed_filename(void);
    fn zend_get_executed_filename() -> *const std::ffi::c_char;
}

pub const SWOOLE_MSGQUEUE_ORIENT: i64 = 1;
pub const SWOOLE_MSGQUEUE_BALANCE: i64 = 2;
const PIPE_TYPE_STREAM: i64 = 1;

thread_local! {
    /// The next `$process->id` (Swoole counts from 1 per process).
    static NEXT_ID: Cell<i64> = const { Cell::new(0) };
    /// `Process::signal()` callbacks by signal number.
    static SIGNALS: Box<RefCell<HashMap<i32, Zval>>> = Box::new(RefCell::new(HashMap::new()));
    /// The loop task that reads the signal pipe runs (one per thread).
    static SIGNAL_TASK: Cell<bool> = const { Cell::new(false) };
}

/// A `string $data` argument as bytes: a binary string as it is, another
/// scalar as PHP's string conversion gives it (None for arrays, objects).
pub(super) fn data_bytes(data: &Zval) -> Option<Vec<u8>> {
    match data.zend_str() {
        Some(s) => Some(s.as_bytes().to_vec()),
        None => data.coerce_to_string().map(String::into_bytes),
    }
}

fn warn(msg: &str) {
    php_error(&ErrorType::Warning, msg);
}

fn sys_warn(msg: &str, e: &std::io::Error) {
    let code = e.raw_os_error().unwrap_or(0);
    super::errors::set_last_error(code as i64);
    let text = std::io::Error::from_raw_os_error(code).to_string();
    let text = text.split(" (os error").next().unwrap_or(&text).to_string();
    warn(&format!("{msg}, Error: {text}[{code}]"));
}

fn as_long(z: Option<&Zval>, default: i64) -> i64 {
    match z {
        None => default,
        Some(z) => z
            .long()
            .or_else(|| z.bool().map(i64::from))
            .or_else(|| z.double().map(|d| d as i64))
            .or_else(|| z.str().and_then(|s| s.trim().parse().ok()))
            .unwrap_or(default),
    }
}

fn as_bool(z: Option<&Zval>, default: bool) -> bool {
    match z {
        None => default,
        Some(z) => z
            .bool()
            .or_else(|| z.long().map(|n| n != 0))
            .unwrap_or(default),
    }
}

/// An int argument as PHP's non-strict mode takes it: an int, a bool, an
/// integral float or a numeric string.
fn int_arg(z: &Zval) -> Option<i64> {
    if let Some(n) = z.long() {
        return Some(n);
    }
    if let Some(b) = z.bool() {
        return Some(i64::from(b));
    }
    if let Some(d) = z.double() {
        return (d.fract() == 0.0 && d.is_finite()).then_some(d as i64);
    }
    z.str().and_then(|s| s.trim().parse().ok())
}

#[php_class]
#[php(name = "Swoole\\Process")]
pub struct Process {
    callback: RefCell<Option<Zval>>,
    id: Cell<i64>,
    pid: Cell<Option<i64>>,
    /// The two ends of the pipe (-1: none or closed).
    master_fd: Cell<RawFd>,
    worker_fd: Cell<RawFd>,
    /// True in the child (it uses the worker end).
    in_child: Cell<bool>,
    redirect: bool,
    enable_coroutine: Cell<bool>,
    blocking: Cell<bool>,
    queue: Cell<Option<MsgQueue>>,
    queue_key: Cell<Option<i64>>,
    queue_mode: Cell<i64>,
    /// The pipe belongs to a pool (`Pool::getProcess()`): never closed here.
    shared: bool,
    /// `exportSocket()`'s Coroutine\Socket (over a dup of the pipe end), made once.
    zsocket: RefCell<Option<Zval>>,
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.shared {
            return;
        }
        up::close_fd(self.master_fd.replace(-1));
        up::close_fd(self.worker_fd.replace(-1));
    }
}

impl Process {
    /// The end of the pipe this process uses.
    fn current_fd(&self) -> RawFd {
        if self.in_child.get() {
            self.worker_fd.get()
        } else {
            self.master_fd.get()
        }
    }

    /// A pool worker as `Pool::getProcess()` shows it: `ends` is its
    /// socket pair (shared by the whole pool), `me` when it is this process.
    pub fn shared(
        id: i64,
        pid: Option<i64>,
        ends: Option<(RawFd, RawFd)>,
        me: bool,
        queue: Option<MsgQueue>,
    ) -> Process {
        let (m, w) = ends.unwrap_or((-1, -1));
        Process {
            callback: RefCell::new(None),
            id: Cell::new(id),
            pid: Cell::new(pid),
            master_fd: Cell::new(m),
            worker_fd: Cell::new(w),
            in_child: Cell::new(me),
            redirect: false,
            enable_coroutine: Cell::new(false),
            blocking: Cell::new(true),
            queue: Cell::new(queue),
            queue_key: Cell::new(None),
            queue_mode: Cell::new(SWOOLE_MSGQUEUE_BALANCE),
            shared: true,
            zsocket: RefCell::new(None),
        }
    }

    /// `$who` of `setPriority()`/`getPriority()`: this process's pid when
    /// omitted with `PRIO_PROCESS`; required for the other kinds.
    fn priority_who(&self, which: i64, who: Option<i64>) -> Option<i32> {
        match who {
            Some(w) => Some(w as i32),
            None if which == libc::PRIO_PROCESS as i64 => Some(self.pid.get().unwrap_or(0) as i32),
            None => {
                super::errors::set_last_error(super::errors::SWOOLE_ERROR_INVALID_PARAMS);
                warn("$who is required for this $which");
                None
            }
        }
    }

    /// `Pool::getProcess()`: the worker's current pid.
    pub fn set_pid(&self, pid: Option<i64>) {
        self.pid.set(pid);
    }

    /// `Server::addProcess()`: the id the server gives it.
    pub fn set_id(&self, id: i64) {
        self.id.set(id);
    }

    /// Runs this process's callback in the current (child) process on the
    /// current thread: `$process` gets its pid and the worker end of the
    /// pipe. Returns the exit code.
    ///
    /// # Safety
    /// `obj` must be the live PHP object that owns `this`, kept alive for
    /// the whole call.
    pub unsafe fn run_body(obj: *mut ZendObject, this: &Process) -> i32 {
        this.in_child.set(true);
        this.pid.set(Some(std::process::id() as i64));
        up::close_fd(this.master_fd.replace(-1));
        let wfd = this.worker_fd.get();
        if this.redirect && wfd >= 0 {
            // SAFETY: dup2 onto the standard descriptors from our pipe end.
            unsafe {
                libc::dup2(wfd, 0);
                libc::dup2(wfd, 1);
                libc::dup2(wfd, 2);
            }
        }
        coroutine::init();
        let Some(cb) = this.callback.borrow().as_ref().map(Zval::shallow_clone) else {
            return 0;
        };
        let mut zobj = Zval::new();
        // SAFETY: the function's contract: `obj` is live. set_object adds a ref.
        zobj.set_object(unsafe { &mut *obj });
        let code = if this.enable_coroutine.get() {
            let job = Job {
                callable: cb,
                args: vec![zobj],
                done: None,
            };
            if let Err(e) = coroutine::spawn(job) {
                warn(&format!("{e:?}"));
            }
            coroutine::run_loop();
            0
        } else {
            match boundary::call(&cb, &mut [zobj]) {
                Ok(_) => 0,
                // As Swoole: `exit()` in the callback still lets the loop
                // run what it left (and wait for `exit_condition`).
                Err(CallError::Exit(c)) => c,
                Err(CallError::Fatal(c)) => return c,
                Err(CallError::Exception) => return 255,
                Err(CallError::Unwind) => return 255,
            }
        };
        // Timers, coroutines or deferred work the callback left: run them,
        // as Swoole's loop does at the end of the child.
        if event_loop::live_tasks() > 0 || coroutine::has_exit_condition() {
            coroutine::run_loop();
        }
        code
    }
}

/// The end of a child whose callback returned: the shutdown functions run,
/// then the output is flushed (Swoole's child ends the request as `exit()`
/// would; ours leaves with `_exit`).
pub fn end_child(code: i32) {
    coroutine::call_shutdown_functions();
    flush_output(code);
}

/// Flushes PHP's output (the child leaves with `_exit`).
pub fn flush_output(_code: i32) {
    // SAFETY: on the thread running PHP, before the process leaves.
    unsafe { ext_php_rs::ffi::php_output_end_all() };
}

fn next_id() -> i64 {
    NEXT_ID.with(|n| {
        let mut v = n.get();
        if v == 0 {
            v = 1;
        }
        n.set(v + 1);
        v
    })
}

#[php_impl]
impl Process {
    const IPC_NOWAIT: i64 = 256;
    const PIPE_MASTER: i64 = 1;
    const PIPE_WORKER: i64 = 2;
    const PIPE_READ: i64 = 3;
    const PIPE_WRITE: i64 = 4;
    const PIPE_TYPE_NONE: i64 = 0;
    const PIPE_TYPE_STREAM: i64 = 1;
    const PIPE_TYPE_DGRAM: i64 = 2;

    pub fn __construct(
        callback: &Zval,
        redirect_stdin_and_stdout: Option<&Zval>,
        pipe_type: Option<&Zval>,
        enable_coroutine: Option<&Zval>,
    ) -> PhpResult<Self> {
        if !callback.is_callable() {
            return Err(type_error(format!(
                "Swoole\\Process::__construct(): Argument #1 ($callback) must be a valid callback, {}",
                coroutine::callable_problem(callback)
            )));
        }
        let redirect = as_bool(redirect_stdin_and_stdout, false);
        let mut pipe_type = as_long(pipe_type, 2);
        if redirect {
            pipe_type = PIPE_TYPE_STREAM;
        }
        let (m, w) = if pipe_type > 0 {
            up::socket_pair(pipe_type == PIPE_TYPE_STREAM).map_err(|e| {
                super::exception::swoole_exception(
                    "failed to create unix soccket",
                    e.raw_os_error().unwrap_or(0),
                )
            })?
        } else {
            (-1, -1)
        };
        Ok(Process {
            callback: RefCell::new(Some(callback.shallow_clone())),
            id: Cell::new(next_id()),
            pid: Cell::new(None),
            master_fd: Cell::new(m),
            worker_fd: Cell::new(w),
            in_child: Cell::new(false),
            redirect,
            enable_coroutine: Cell::new(as_bool(enable_coroutine, false)),
            blocking: Cell::new(true),
            queue: Cell::new(None),
            queue_key: Cell::new(None),
            queue_mode: Cell::new(SWOOLE_MSGQUEUE_BALANCE),
            shared: false,
            zsocket: RefCell::new(None),
        })
    }

    pub fn __destruct(&self) {}

    #[php(getter, name = "pipe")]
    pub fn prop_pipe(&self) -> Option<i64> {
        let fd = self.current_fd();
        (fd >= 0).then_some(fd as i64)
    }

    #[php(getter, name = "pid")]
    pub fn prop_pid(&self) -> Option<i64> {
        self.pid.get()
    }

    #[php(getter, name = "id")]
    pub fn prop_id(&self) -> Option<i64> {
        Some(self.id.get())
    }

    #[php(getter, name = "msgQueueId")]
    pub fn prop_msg_queue_id(&self) -> Option<i64> {
        self.queue.get().map(|q| q.id as i64)
    }

    #[php(getter, name = "msgQueueKey")]
    pub fn prop_msg_queue_key(&self) -> Option<i64> {
        self.queue_key.get()
    }

    /// Forks the child; returns its pid in the parent. The child runs the
    /// callback and never returns from here.
    pub fn start(self_: &mut ZendClassObject<Process>) -> Zval {
        let mut out = Zval::new();
        if let Some(pid) = self_.pid.get() {
            if !self_.in_child.get() && up::kill(pid as i32, 0).is_ok() {
                warn("process has already been started");
                out.set_bool(false);
                return out;
            }
        }
        let obj: *mut ZendObject = &raw mut self_.std;
        let this: *const Process = &**self_;
        match up::fork() {
            Err(e) => {
                sys_warn("fork() failed", &e);
                out.set_bool(false);
            }
            Ok(Forked::Parent(pid)) => {
                self_.pid.set(Some(pid as i64));
                out.set_long(pid as i64);
            }
            Ok(Forked::Child) => {
                crate::engine::worker::forget_worker_id();
                up::run_child(
                    Box::new(move || {
                        // SAFETY: the object outlives the child (the forking
                        // thread holds it in this very call until _exit).
                        unsafe { Process::run_body(obj, &*this) }
                    }),
                    Box::new(end_child),
                )
            }
        }
        out
    }

    pub fn set(&self, settings: &ZendHashTable) {
        if let Some(v) = settings.get("enable_coroutine") {
            self.enable_coroutine.set(as_bool(Some(v), false));
        }
    }

    pub fn set_timeout(&self, seconds: f64) -> bool {
        let fd = self.current_fd();
        if fd < 0 {
            warn("no pipe, cannot setTimeout the pipe");
            return false;
        }
        up::set_timeout(fd, seconds)
    }

    pub fn set_blocking(&self, blocking: bool) -> bool {
        let fd = self.current_fd();
        if fd < 0 {
            warn("no pipe, cannot setBlocking the pipe");
            return false;
        }
        self.blocking.set(blocking);
        up::set_nonblocking(fd, !blocking)
    }

    pub fn write(&self, data: &Zval) -> Zval {
        let mut out = Zval::new();
        out.set_bool(false);
        let Some(bytes) = data_bytes(data) else {
            return out;
        };
        if bytes.is_empty() {
            warn("the data to send is empty");
            return out;
        }
        let fd = self.current_fd();
        if fd < 0 {
            warn("no pipe, cannot write into pipe");
            return out;
        }
        match up::write_fd(fd, &bytes) {
            Ok(n) => out.set_long(n as i64),
            Err(e) => sys_warn("write() failed", &e),
        }
        out
    }

    #[php(defaults(size = 8192))]
    pub fn read(&self, size: i64) -> Zval {
        let mut out = Zval::new();
        out.set_bool(false);
        let size = size.clamp(1, 64 << 20) as usize;
        let fd = self.current_fd();
        if fd < 0 {
            warn("no pipe, cannot read from pipe");
            return out;
        }
        if let Ok(buf) = up::read_fd(fd, size) {
            out.set_binary(buf);
        }
        out
    }

    #[php(defaults(which = 0))]
    pub fn close(&self, which: i64) -> bool {
        let cur = self.current_fd();
        if cur < 0 {
            warn("no pipe, cannot close the pipe");
            return false;
        }
        let shut = |how| {
            // SAFETY: shutdown() on our own socket.
            unsafe { libc::shutdown(cur, how) == 0 }
        };
        match which {
            3 => shut(libc::SHUT_RD),
            4 => shut(libc::SHUT_WR),
            1 => {
                up::close_fd(self.master_fd.replace(-1));
                true
            }
            2 => {
                up::close_fd(self.worker_fd.replace(-1));
                true
            }
            _ => {
                up::close_fd(self.master_fd.replace(-1));
                up::close_fd(self.worker_fd.replace(-1));
                true
            }
        }
    }

    #[php(defaults(key = 0, mode = 2, capacity = -1))]
    pub fn use_queue(&self, key: i64, mode: i64, capacity: i64) -> bool {
        let mut key = key;
        let mut mode = mode;
        if key <= 0 {
            // SAFETY: returns a pointer to a string PHP owns, or null.
            let file = unsafe {
                let p = zend_get_executed_filename();
                if p.is_null() {
                    String::new()
                } else {
                    std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
                }
            };
            key = up::ftok(&file);
        }
        let mut q = match MsgQueue::open(key, capacity) {
            Ok(q) => q,
            Err(e) => {
                sys_warn(&format!("msgget({key}) failed"), &e);
                return false;
            }
        };
        if mode & 256 != 0 {
            q.blocking = false;
            mode &= !256;
        }
        self.queue.set(Some(q));
        self.queue_key.set(Some(key));
        self.queue_mode.set(mode);
        true
    }

    pub fn stat_queue(&self) -> Zval {
        let mut out = Zval::new();
        out.set_bool(false);
        let Some(q) = self.queue.get() else {
            warn("no queue, can't get stats of the queue");
            return out;
        };
        if let Ok((num, bytes)) = q.stat() {
            let mut arr = ZendHashTable::new();
            let _ = arr.insert("queue_num", num as i64);
            let _ = arr.insert("queue_bytes", bytes as i64);
            out.set_hashtable(arr);
        }
        out
    }

    pub fn free_queue(&self) -> bool {
        match self.queue.get() {
            Some(q) if q.destroy().is_ok() => {
                self.queue.set(None);
                true
            }
            _ => false,
        }
    }

    pub fn push(&self, data: &Zval) -> bool {
        let bytes = data_bytes(data).unwrap_or_default();
        if bytes.is_empty() {
            warn("the data to push is empty");
            return false;
        }
        if bytes.len() >= up::MSGQUEUE_MAX {
            warn("the data to push is too big");
            return false;
        }
        let Some(q) = self.queue.get() else {
            warn("no msgqueue, cannot use push()");
            return false;
        };
        q.push(self.id.get() + 1, &bytes).is_ok()
    }

    #[php(defaults(size = 65536))]
    pub fn pop(&self, size: i64) -> Zval {
        let mut out = Zval::new();
        out.set_bool(false);
        let mut size = size;
        if size <= 0 || size > up::MSGQUEUE_MAX as i64 {
            size = up::MSGQUEUE_MAX as i64;
        }
        let Some(q) = self.queue.get() else {
            warn("no msgqueue, cannot use pop()");
            return out;
        };
        let mtype = if self.queue_mode.get() == SWOOLE_MSGQUEUE_BALANCE {
            0
        } else {
            self.id.get() + 1
        };
        if let Ok(buf) = q.pop(mtype, size as usize) {
            out.set_binary(buf);
        }
        out
    }

    #[php(defaults(exit_code = 0))]
    pub fn exit(&self, exit_code: i64) {
        let mut code = exit_code;
        if self.pid.get() != Some(std::process::id() as i64) {
            warn("not current process");
            return;
        }
        if !(0..=255).contains(&code) {
            warn("exit ret_code range is [>0 and <255] ");
            code = 1;
        }
        flush_output(code as i32);
        // SAFETY: leaves the process, as Swoole's exit() does.
        unsafe { libc::_exit(code as i32) }
    }

    pub fn exec(&self, exec_file: String, args: &ZendHashTable) -> bool {
        if exec_file.is_empty() {
            warn("exec file name is empty");
            return false;
        }
        let mut argv = vec![exec_file.clone()];
        for (_, v) in args.iter() {
            argv.push(v.coerce_to_string().unwrap_or_default());
        }
        let Ok(c_argv) = argv
            .iter()
            .map(|a| std::ffi::CString::new(a.as_bytes()))
            .collect::<Result<Vec<_>, _>>()
        else {
            return false;
        };
        let mut ptrs: Vec<*const std::ffi::c_char> = c_argv.iter().map(|c| c.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        flush_output(0);
        // SAFETY: execv with a NUL-terminated path and a null-terminated
        // array of NUL-terminated strings that live across the call.
        unsafe { libc::execv(c_argv[0].as_ptr(), ptrs.as_ptr()) };
        sys_warn(
            &format!("execv({exec_file}) failed"),
            &std::io::Error::last_os_error(),
        );
        false
    }

    pub fn name(&self, process_name: String) -> bool {
        set_process_name(&process_name)
    }

    pub fn set_priority(&self, which: i64, priority: i64, who: Option<i64>) -> bool {
        let Some(who) = self.priority_who(which, who) else {
            return false;
        };
        match up::set_priority(which as i32, who, priority as i32) {
            Ok(()) => true,
            Err(e) => {
                // Swoole sets the error without a warning.
                super::errors::set_last_error(e.raw_os_error().unwrap_or(0) as i64);
                false
            }
        }
    }

    pub fn get_priority(&self, which: i64, who: Option<i64>) -> Zval {
        let mut out = Zval::new();
        let Some(who) = self.priority_who(which, who) else {
            out.set_bool(false);
            return out;
        };
        match up::get_priority(which as i32, who) {
            Ok(p) => out.set_long(p as i64),
            Err(e) => {
                super::errors::set_last_error(e.raw_os_error().unwrap_or(0) as i64);
                out.set_bool(false);
            }
        }
        out
    }

    pub fn export_socket(&self) -> Zval {
        if let Some(z) = self.zsocket.borrow().as_ref() {
            return z.shallow_clone();
        }
        let fd = self.current_fd();
        if fd < 0 {
            warn("no pipe, cannot export stream");
            return super::socket_coro::false_zval();
        }
        // As Swoole: a Coroutine\Socket over a duplicate of this process's
        // end of the pipe, the same object on every call.
        match crate::engine::net::socket::NetSocket::import_fd(fd) {
            Ok(n) => {
                let z = super::socket_coro::Socket::from_net(n).into_zval();
                *self.zsocket.borrow_mut() = Some(z.shallow_clone());
                z
            }
            Err(e) => {
                warn(&format!("exportSocket(): {e}"));
                super::socket_coro::false_zval()
            }
        }
    }

    #[php(defaults(blocking = true))]
    pub fn wait(blocking: bool) -> Zval {
        let mut out = Zval::new();
        match up::wait_any(blocking) {
            Some(st) => {
                let mut arr = ZendHashTable::new();
                let _ = arr.insert("pid", st.pid as i64);
                let _ = arr.insert("code", st.code as i64);
                let _ = arr.insert("signal", st.signal as i64);
                out.set_hashtable(arr);
            }
            None => out.set_bool(false),
        }
        out
    }

    pub fn kill(pid: &Zval, signal_no: Option<&Zval>) -> PhpResult<bool> {
        let Some(pid) = int_arg(pid) else {
            return Err(type_error(format!(
                "Swoole\\Process::kill(): Argument #1 ($pid) must be of type int, {} given",
                super::settings::type_name(pid)
            )));
        };
        let sig = signal_no.and_then(int_arg).unwrap_or(15);
        Ok(match up::kill(pid as i32, sig as i32) {
            Ok(()) => true,
            Err(errno) => {
                if !(sig == 0 && errno == libc::ESRCH) {
                    sys_warn(
                        &format!("kill({pid}, {sig}) failed"),
                        &std::io::Error::from_raw_os_error(errno),
                    );
                }
                false
            }
        })
    }

    pub fn signal(signal_no: i64, callback: Option<&Zval>) -> PhpResult<bool> {
        signal_impl(signal_no, callback)
    }

    #[php(defaults(r#type = 0))]
    pub fn alarm(usec: i64, r#type: i64) -> bool {
        if timer::pending() > 0 {
            warn("cannot use both 'timer' and 'alarm' at the same time");
            return false;
        }
        match up::alarm(usec, r#type as i32) {
            Ok(()) => true,
            Err(e) => {
                sys_warn("setitimer() failed", &e);
                false
            }
        }
    }

    #[php(defaults(nochdir = true, noclose = true))]
    pub fn daemon(nochdir: bool, noclose: bool, pipes: Option<&ZendHashTable>) -> bool {
        if let Some(pipes) = pipes {
            for (i, (_, v)) in pipes.iter().enumerate().take(3) {
                if let Some(fd) = v.long() {
                    // SAFETY: dup2 with integer descriptors.
                    unsafe { libc::dup2(fd as i32, i as i32) };
                }
            }
        }
        // SAFETY: daemon(3) forks; the parent leaves at once with _exit.
        unsafe { libc::daemon(i32::from(nochdir), i32::from(noclose)) == 0 }
    }

    pub fn set_affinity(cpu_settings: &ZendHashTable) -> bool {
        let n = up::cpu_count();
        if cpu_settings.is_empty() {
            return false;
        }
        if cpu_settings.len() > n {
            warn("More than the number of CPU");
            return false;
        }
        let mut cpus = Vec::new();
        for (_, v) in cpu_settings.iter() {
            let c = v.long().unwrap_or(0);
            if c < 0 || c as usize >= n {
                warn(&format!("invalid cpu id [{c}]"));
                return false;
            }
            cpus.push(c as usize);
        }
        match up::set_affinity(&cpus) {
            Ok(()) => true,
            Err(e) => {
                sys_warn("sched_setaffinity() failed", &e);
                false
            }
        }
    }

    pub fn get_affinity() -> Zval {
        let mut out = Zval::new();
        match up::get_affinity() {
            Ok(cpus) => {
                let mut arr = ZendHashTable::new();
                for c in cpus {
                    let _ = arr.push(c as i64);
                }
                out.set_hashtable(arr);
            }
            Err(e) => {
                sys_warn("sched_getaffinity() failed", &e);
                out.set_bool(false);
            }
        }
        out
    }
}

/// `cli_set_process_title()`, as Swoole's `name()` is.
pub fn set_process_name(name: &str) -> bool {
    up::set_comm(name);
    match ext_php_rs::types::ZendCallable::try_from_name("cli_set_process_title") {
        Ok(f) => f
            .try_call(vec![&name.to_string()])
            .ok()
            .and_then(|z| z.bool())
            .unwrap_or(false),
        Err(_) => false,
    }
}

/// Takes `sig` back for its `Process::signal()` callback, if the script set
/// one, after the runtime installed its own handler (a pool worker's stop
/// handler goes in after `workerStart`, where scripts set theirs). True when
/// there was a callback.
pub fn reclaim_signal(sig: i32) -> bool {
    let has = SIGNALS.with(|s| s.borrow().contains_key(&sig));
    has && up::listen(sig).is_ok()
}

fn signal_impl(signal_no: i64, callback: Option<&Zval>) -> PhpResult<bool> {
    if !up::valid_signal(signal_no) {
        warn(&format!("invalid signal number [{signal_no}]"));
        return Ok(false);
    }
    let sig = signal_no as i32;
    match callback {
        None => {
            let had = SIGNALS.with(|s| s.borrow_mut().remove(&sig));
            if had.is_none() {
                warn(&format!(
                    "unable to find the callback of signal [{signal_no}]"
                ));
                return Ok(false);
            }
            up::unlisten(sig);
            Ok(true)
        }
        Some(z) if z.is_null() => signal_impl(signal_no, None),
        Some(z) if z.long() == Some(libc::SIG_IGN as i64) => {
            SIGNALS.with(|s| s.borrow_mut().remove(&sig));
            Ok(up::ignore(sig).is_ok())
        }
        Some(z) if z.is_callable() => {
            if let Err(e) = up::listen(sig) {
                sys_warn("sigaction() failed", &e);
                return Ok(false);
            }
            SIGNALS.with(|s| s.borrow_mut().insert(sig, z.shallow_clone()));
            start_signal_task();
            Ok(true)
        }
        Some(z) => Err(type_error(format!(
            "Swoole\\Process::signal(): Argument #2 ($callback) must be a valid callback or null, {}",
            coroutine::callable_problem(z)
        ))),
    }
}

struct Fd(RawFd);

impl std::os::fd::AsRawFd for Fd {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

/// The loop task that hands arrived signals to their callbacks, each in a
/// new coroutine (as a timer callback is). It does not keep the loop alive
/// (Swoole's default, `wait_signal` off).
fn start_signal_task() {
    if SIGNAL_TASK.with(|t| t.replace(true)) {
        return;
    }
    coroutine::schedule_loop();
    event_loop::spawn_untracked(async {
        let fd = match up::listen_fd() {
            Some(fd) => fd,
            None => return,
        };
        // SAFETY: the signal pipe stays open while the process runs (it is
        // only closed in a new child, which has a new loop).
        let afd = match unsafe { tokio::io::unix::AsyncFd::register(Fd(fd)) } {
            Ok(a) => a,
            Err(_) => return,
        };
        loop {
            // Signals that arrived before the loop ran are pending already.
            dispatch_signals();
            let Ok(mut g) = afd.readable().await else {
                return;
            };
            g.clear_ready();
        }
    });
}

/// Calls the callbacks of the signals that arrived (also from the
/// supervisors' `poll()` loops, which run no event loop).
pub fn dispatch_signals() {
    for sig in up::take_pending() {
        let cb = SIGNALS.with(|s| s.borrow().get(&sig).map(Zval::shallow_clone));
        if let Some(cb) = cb {
            let mut arg = Zval::new();
            arg.set_long(sig as i64);
            if super::timer::coroutine_enabled() {
                let _ = coroutine::spawn(Job {
                    callable: cb,
                    args: vec![arg],
                    done: None,
                });
            } else {
                // `enable_coroutine` off: no coroutine, and `exit()` in the
                // callback ends the process with its code.
                coroutine::after_failure(boundary::call_void(&cb, &mut [arg]));
            }
        }
    }
}

/// `Server::addProcess($process)`: checks the argument; its id becomes its
/// index among the server's user processes.
pub fn check_for_server(z: &Zval, index: usize) -> PhpResult<i64> {
    let Some(p) = from_zval(z) else {
        return Err(type_error(
            "Swoole\\Server::addProcess(): Argument #1 ($process) must be of type Swoole\\Process",
        ));
    };
    p.set_id(index as i64);
    Ok(index as i64)
}

/// Hands the server's user processes to the supervisor: each runs in a
/// forked child, on the supervisor's thread, with `$process->id` set to its
/// worker id.
pub fn install_user_processes(list: Vec<Zval>) {
    if list.is_empty() {
        crate::engine::proc::supervisor::set_user_processes(None);
        return;
    }
    let count = list.len();
    let list = std::rc::Rc::new(list);
    let run = move |index: usize, worker_id: usize| -> i32 {
        let Some(z) = list.get(index) else {
            return 0;
        };
        let Some(obj) = z.object() else { return 0 };
        let obj: *mut ZendObject = std::ptr::from_ref(obj).cast_mut();
        let Some(p) = from_zval(z) else { return 0 };
        p.set_id(worker_id as i64);
        // On this thread: the supervisor that forked us never built a
        // runtime, and the server's per-process state (the IPC inboxes
        // `send()` routes through) lives in this thread's locals.
        // SAFETY: `obj` is the object behind `p`, held by the server's list.
        let code = unsafe { Process::run_body(obj, p) };
        flush_output(code);
        code
    };
    crate::engine::proc::supervisor::set_user_processes(Some(
        crate::engine::proc::supervisor::UserProcesses {
            count,
            run: std::rc::Rc::new(run),
        },
    ));
}

/// `Server::getWorkerStatus()`: busy while it has requests (or a receive
/// callback) in flight, exit once the calling worker stops, idle otherwise;
/// false for a worker that does not run.
pub fn worker_status(worker_id: i64) -> Zval {
    let mut out = Zval::new();
    let me = crate::engine::worker::current_worker_id() as i64;
    let id = if worker_id < 0 { me } else { worker_id };
    if id < 0 || crate::engine::shared::stats::shared().is_none() {
        out.set_bool(false);
        return out;
    }
    if id == me {
        // SWOOLE_WORKER_EXIT once stopping, BUSY inside a request or a
        // receive callback, IDLE otherwise (workerStart, a timer).
        let st = match crate::engine::shared::stats::my_load() {
            Some((true, _)) => 3,
            Some((false, 0)) => 2,
            _ => 1,
        };
        out.set_long(st);
        return out;
    }
    match crate::engine::shared::stats::workers()
        .into_iter()
        .find(|w| w.worker_id as i64 == id)
    {
        Some(w) if w.concurrency > 0 => out.set_long(1),
        Some(_) => out.set_long(2),
        None => out.set_bool(false),
    }
    out
}

/// The Process object behind a zval, if it is one.
pub fn from_zval(z: &Zval) -> Option<&Process> {
    let obj = z.object()?;
    ZendClassObject::<Process>::from_zend_obj(obj).map(|o| &**o)
}

pub fn process_object(p: &ZBox<ZendObject>) -> Option<&Process> {
    ZendClassObject::<Process>::from_zend_obj(p).map(|o| &**o)
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    up::set_dispatcher(dispatch_signals);
    module
        .class::<Process>()
        .constant(("SWOOLE_MSGQUEUE_ORIENT", SWOOLE_MSGQUEUE_ORIENT, &[]))
        .constant(("SWOOLE_MSGQUEUE_BALANCE", SWOOLE_MSGQUEUE_BALANCE, &[]))
}

/// Request shutdown: drop the signal callbacks.
pub fn shutdown() {
    let map = SIGNALS.with(|s| std::mem::take(&mut *s.borrow_mut()));
    drop(map);
}
