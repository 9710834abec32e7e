//! Task workers from PHP: `Swoole\Server\Task` (what `onTask` gets with
//! `task_enable_coroutine`), payload packing, and the tables a worker keeps
//! for tasks it sent: per-task finish callbacks and coroutines waiting in
//! `taskwait()`/`taskCo()`/`taskWaitMulti()`.
//!
//! The engine moves bytes (`engine::ipc`); here a PHP value becomes bytes:
//! a string travels as is, anything else through `serialize()` with the
//! `SWOOLE_TASK_SERIALIZE` flag, as in Swoole.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ext_php_rs::error::php_error;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendCallable, Zval};

use super::boundary::{self, CallError};
use super::http_request::bytes_zval;
use crate::coro::{self, Cid, WaitKind, Wake};
use crate::engine::ipc::{self, Kind, Msg};
use crate::engine::worker;

/// Swoole's `SW_TASK_TMPFILE` (a packet naming a file that holds the data).
const FLAG_TMPFILE: u32 = 1;
/// Swoole's `SW_TASK_SERIALIZE`.
pub const FLAG_SERIALIZE: u32 = 2;
/// Swoole's `SW_TASK_NONBLOCK`: dispatched by `task()` or from a coroutine.
pub const FLAG_NONBLOCK: u32 = 1 << 2;
/// Swoole's `SW_TASK_CALLBACK`: `task()` with a finish callback.
const FLAG_CALLBACK: u32 = 1 << 3;
/// Swoole's `SW_TASK_WAITALL`: a blocking `taskWaitMulti()`.
pub const FLAG_WAITALL: u32 = 1 << 4;
/// Swoole's `SW_TASK_COROUTINE`: a coroutine waits for the result.
pub const FLAG_COROUTINE: u32 = 1 << 5;
/// Swoole's `SW_TASK_NOREPLY`: nobody takes a result (sent by the master).
const FLAG_NOREPLY: u32 = 1 << 7;

/// A PHP value as task bytes and flags, from inside a PHP method
/// (`task()`, `finish()`, `sendMessage()`): `serialize()` runs user code
/// (`__serialize`, `__sleep`) with the method's caller below it, so an
/// exception there stays pending and reaches that caller, as from PHP's own
/// `serialize()`. None then (or when the value cannot be serialized).
pub fn pack(z: &Zval) -> Option<(Bytes, u32)> {
    if let Some(s) = z.zend_str() {
        return Some((Bytes::copy_from_slice(s.as_bytes()), 0));
    }
    let f = ZendCallable::try_from_name("serialize").ok()?;
    let out = f.try_call(vec![z]).ok()?;
    let s = out.zend_str()?;
    Some((Bytes::copy_from_slice(s.as_bytes()), FLAG_SERIALIZE))
}

/// [`pack`] from a hook (no PHP frame below: `onTask`'s return value):
/// through the boundary, so an exception in `__serialize`/`__sleep` is
/// logged as uncaught and cleared (it must not reach the next callback)
/// and a fatal error is reported to the caller.
pub fn pack_from_hook(z: &Zval) -> Result<(Bytes, u32), CallError> {
    if let Some(s) = z.zend_str() {
        return Ok((Bytes::copy_from_slice(s.as_bytes()), 0));
    }
    let mut name = Zval::new();
    name.set_string("serialize", false)
        .map_err(|_| CallError::Exception)?;
    let out = boundary::call(&name, &mut [z.shallow_clone()])?;
    match out.zend_str() {
        Some(s) => Ok((Bytes::copy_from_slice(s.as_bytes()), FLAG_SERIALIZE)),
        None => Err(CallError::Exception),
    }
}

/// Whether PHP has an exception pending (it then reaches the PHP caller;
/// no warning is added on top, as in Swoole).
fn exception_pending() -> bool {
    !ext_php_rs::zend::ExecutorGlobals::get().exception.is_null()
}

/// Task bytes back into a PHP value. `unserialize()` runs user code
/// (`__wakeup`, `__unserialize`, autoloaders), so it goes through the
/// boundary: an exception there is logged and cleared (and must not reach
/// the next callback), a fatal error is reported to the caller.
pub fn unpack(data: &[u8], flags: u32) -> Result<Zval, CallError> {
    let raw = bytes_zval(data);
    if flags & FLAG_SERIALIZE == 0 {
        return Ok(raw);
    }
    let mut name = Zval::new();
    name.set_string("unserialize", false)
        .map_err(|_| CallError::Exception)?;
    boundary::call(&name, &mut [raw])
}

/// [`unpack`] where a payload that cannot be restored becomes `false`
/// (finish results, pipe messages: the callback still runs, as in Swoole).
pub fn unpack_or_false(data: &[u8], flags: u32) -> Result<Zval, CallError> {
    match unpack(data, flags) {
        Ok(v) => Ok(v),
        Err(CallError::Exception) => {
            let mut f = Zval::new();
            f.set_bool(false);
            Ok(f)
        }
        Err(e) => Err(e),
    }
}

/// Size of Swoole's `DataHead`, the header of a packed task.
const HEAD_LEN: usize = 40;
/// Swoole's `SW_IPC_MAX_SIZE`: a payload of this size with the header and
/// more goes to a temporary file.
const IPC_MAX: usize = 8192;
/// Swoole's `SW_TASK_TMP_PATH_SIZE`: the path field of a file packet.
const TMP_PATH_LEN: usize = 256;
/// Swoole's `SW_SERVER_EVENT_TASK`, the header's event type.
const EVENT_TASK: u8 = 8;

/// `Task::pack()`: Swoole's task packet (its `EventData`, native byte
/// order): a 40-byte header (task id, payload length, worker id, event
/// type, task flags, time) then the payload, or for a large payload a
/// file packet (length, NUL-padded path of a temporary file holding it).
fn encode_packet(id: i64, data: &[u8], flags: u32) -> std::io::Result<Vec<u8>> {
    let mut flags = flags | FLAG_NONBLOCK | FLAG_NOREPLY;
    let body: Vec<u8> = if data.len() < IPC_MAX - HEAD_LEN {
        data.to_vec()
    } else {
        let path = crate::engine::http::form::save_task_file(&ipc::tmpdir(), data)?;
        let p = crate::engine::http::form::path_bytes(&path);
        let mut b = Vec::with_capacity(8 + TMP_PATH_LEN);
        b.extend_from_slice(&(data.len() as u64).to_ne_bytes());
        b.extend_from_slice(&p[..p.len().min(TMP_PATH_LEN - 1)]);
        b.resize(8 + TMP_PATH_LEN, 0);
        flags |= FLAG_TMPFILE;
        b
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let mut out = Vec::with_capacity(HEAD_LEN + body.len());
    out.extend_from_slice(&id.to_ne_bytes()); // fd: the task id
    out.extend_from_slice(&0u64.to_ne_bytes()); // msg_id
    out.extend_from_slice(&(body.len() as u32).to_ne_bytes());
    out.extend_from_slice(&(worker::current_worker_id().max(0) as i16).to_ne_bytes());
    out.push(EVENT_TASK);
    out.push(0); // event flags
    out.extend_from_slice(&0u16.to_ne_bytes()); // server_fd
    out.extend_from_slice(&(flags as u16).to_ne_bytes());
    out.extend_from_slice(&0u32.to_ne_bytes()); // reserved
    out.extend_from_slice(&now.to_ne_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

/// A packet from [`encode_packet`] (or Swoole's) back to its payload and
/// task flags; a file packet's file is read and removed. None for bytes
/// that are not a task packet.
fn decode_packet(p: &[u8]) -> Option<(Vec<u8>, u32)> {
    let head = p.get(..HEAD_LEN)?;
    let len = u32::from_ne_bytes(head.get(16..20)?.try_into().ok()?) as usize;
    let flags = u16::from_ne_bytes(head.get(26..28)?.try_into().ok()?) as u32;
    let body = p.get(HEAD_LEN..HEAD_LEN.checked_add(len)?)?;
    if flags & FLAG_TMPFILE == 0 {
        return Some((body.to_vec(), flags));
    }
    let size = u64::from_ne_bytes(body.get(..8)?.try_into().ok()?) as usize;
    let name = body.get(8..)?;
    let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
    let path =
        std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name));
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            crate::rlog!(Warning, "open({}) failed, Error: {e}", path.display());
            return None;
        }
    };
    let _ = std::fs::remove_file(path);
    if data.len() < size {
        return None;
    }
    Some((data[..size].to_vec(), flags))
}

/// A task packet a task worker took from the System V queue
/// (`ipc::FLAG_QUEUED`): its task id, source worker, payload and flags.
/// None, with Swoole's warning, for bytes that are no task packet.
pub fn decode_queued(p: &[u8]) -> Option<(i64, i32, Vec<u8>, u32)> {
    let head = |at: usize, n: usize| p.get(at..at + n);
    let decoded = head(0, HEAD_LEN).and_then(|_| decode_packet(p));
    let (Some((data, flags)), Some(id), Some(src)) = (decoded, head(0, 8), head(20, 2)) else {
        let want = head(16, 4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, |b: [u8; 4]| u32::from_ne_bytes(b) as usize + HEAD_LEN);
        crate::rlog!(
            Warning,
            "ProcessPool::run_with_task_protocol(): [Worker#{}] bad task packet, The received data-length[{}] is inconsistent with the packet-length[{want}]",
            worker::current_worker_id(),
            p.len()
        );
        return None;
    };
    let id = i64::from_ne_bytes(id.try_into().ok()?);
    let src = i16::from_ne_bytes(src.try_into().ok()?) as i32;
    Some((id, src, data, flags))
}

#[derive(Default)]
struct Tables {
    /// Per-task finish callbacks (`task($data, $dst, $callback)`).
    finish_cbs: HashMap<i64, Zval>,
    /// Task id -> the coroutine waiting for it.
    waiters: HashMap<i64, Cid>,
    /// Results that arrived for waited-on tasks.
    results: HashMap<i64, Zval>,
    /// The task a plain (non-coroutine) `onTask` is running: (id, src worker).
    current: Option<(i64, i32)>,
}

thread_local! {
    /// Boxed: the dlopen()ed extension has little static TLS room.
    static T: Box<RefCell<Option<Box<Tables>>>> = Box::new(RefCell::new(None));
}

/// Runs `f` on the tables; never calls PHP inside.
fn with<R>(f: impl FnOnce(&mut Tables) -> R) -> R {
    T.with(|t| f(t.borrow_mut().get_or_insert_with(Default::default)))
}

pub fn set_current(t: Option<(i64, i32)>) {
    with(|s| s.current = t);
}

/// Sends `data` to a task worker; the task id, or None (with a warning).
/// `mode` is Swoole's dispatch flags (`$task->flags` in `onTask`, next to
/// `SWOOLE_TASK_SERIALIZE`); `task()` passes [`FLAG_NONBLOCK`] and the
/// callback / master bits are added here.
pub fn send_task(data: &Zval, dst: i64, callback: Option<Zval>, mode: u32) -> Option<i64> {
    // The master (`onStart`, its timers), the manager and user processes
    // may dispatch too, as in Swoole: they hold every inbox's write end.
    // Their tasks carry `NOREPLY`. (`php_error` prefixes the method name.)
    if !ipc::is_set_up() {
        php_error(&ErrorType::Warning, "server is not running");
        return None;
    }
    if worker::is_task_worker() {
        php_error(
            &ErrorType::Warning,
            "cannot dispatch a task in a task worker",
        );
        return None;
    }
    let Some((to, all_busy)) = ipc::task_worker_index(dst) else {
        php_error(
            &ErrorType::Warning,
            &format!(
                "invalid task worker id[{dst}] (task_worker_num is {})",
                ipc::task_worker_num()
            ),
        );
        return None;
    };
    let Some((bytes, flags)) = pack(data) else {
        if !exception_pending() {
            php_error(&ErrorType::Warning, "cannot serialize the task data");
        }
        return None;
    };
    if all_busy {
        no_idle_warning();
    }
    let id = ipc::next_task_id();
    let mut flags = flags | mode;
    if !is_event_worker() {
        flags |= FLAG_NOREPLY;
    } else if callback.is_some() {
        flags |= FLAG_CALLBACK;
    }
    let m = Msg {
        kind: Kind::Task,
        flags,
        src: 0,
        id,
        arg: 0,
        data: bytes,
    };
    if let Err(e) = ipc::send(to, m) {
        php_error(&ErrorType::Warning, &format!("{e}"));
        return None;
    }
    if let Some(cb) = callback {
        with(|t| t.finish_cbs.insert(id, cb));
    }
    Some(id)
}

/// Whether this process is an event worker (the only one that takes
/// task results).
fn is_event_worker() -> bool {
    let id = worker::current_worker_id();
    id >= 0 && (id as usize) < ipc::worker_num()
}

/// Whether a task's sender takes no result (the master, the manager, a
/// user process): Swoole's `SW_TASK_NOREPLY`.
pub fn no_reply_flag(flags: u32) -> bool {
    flags & FLAG_NOREPLY != 0
}

/// Sends a task result to worker `src` (from a task worker). A task the
/// master sent (`src` < 0) has nobody waiting: its result is dropped.
/// A task the master sent (`src` < 0) has nobody to take a result: false,
/// with Swoole's log line.
pub fn send_finish(task_id: i64, src: i32, data: &Zval) -> bool {
    if src < 0 && worker::is_task_worker() {
        no_reply();
        return false;
    }
    if !worker::is_task_worker() {
        php_error(
            &ErrorType::Warning,
            "finish can only be used in the task worker process",
        );
        return false;
    }
    let Some((bytes, flags)) = pack(data) else {
        return false;
    };
    finish_packed(task_id, src, bytes, flags)
}

/// `onTask`'s return value as the task's result. A value that cannot be
/// serialized (an exception in `__serialize`, logged) sends no result,
/// as an exception thrown by `onTask` itself does.
pub fn finish_from_hook(task_id: i64, src: i32, data: &Zval) -> Result<(), CallError> {
    if src < 0 {
        no_reply();
        return Ok(());
    }
    let (bytes, flags) = pack_from_hook(data)?;
    finish_packed(task_id, src, bytes, flags);
    Ok(())
}

/// Swoole's warning for a result of a task nobody waits for (`NOREPLY`).
fn no_reply() {
    crate::rlog!(
        Warning,
        "Server::finish(): Server::finish() can only be used in the worker process"
    );
}

/// `SWOOLE_ERROR_SERVER_SEND_TO_WOKER_TIMEOUT`.
const SEND_TO_WORKER_TIMEOUT: i64 = 9014;

fn finish_packed(task_id: i64, src: i32, bytes: Bytes, flags: u32) -> bool {
    let m = Msg {
        kind: Kind::Finish,
        flags,
        src: 0,
        id: task_id,
        arg: 0,
        data: bytes,
    };
    match ipc::send(src as usize, m) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
            // Swoole's SW_ERROR_SERVER_SEND_TO_WOKER_TIMEOUT, in the log.
            crate::rlog!(
                Warning,
                "Server::finish() (ERRNO {SEND_TO_WORKER_TIMEOUT}): send result to worker timed out"
            );
            super::errors::set_last_error(SEND_TO_WORKER_TIMEOUT);
            false
        }
        Err(e) => {
            php_error(&ErrorType::Warning, &format!("{e}"));
            false
        }
    }
}

/// Swoole's scheduler warning for a task dispatched while every task
/// worker was busy: at most once a second per process, unless
/// `swoole_ignore_error(SWOOLE_ERROR_SERVER_NO_IDLE_WORKER)`.
fn no_idle_warning() {
    const NO_IDLE_WORKER: i64 = 9007;
    static LAST: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    if super::errors::is_ignored(NO_IDLE_WORKER) {
        return;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    if LAST.swap(now, std::sync::atomic::Ordering::Relaxed) == now {
        return;
    }
    crate::rlog!(
        Warning,
        "Server::timer_callback() (ERRNO {NO_IDLE_WORKER}): No idle task worker is available"
    );
}

/// `$server->finish()` inside a plain `onTask`.
pub fn finish_current(data: &Zval) -> bool {
    match with(|t| t.current) {
        Some((id, src)) => send_finish(id, src, data),
        None => {
            php_error(
                &ErrorType::Warning,
                "no task is running (use $task->finish() with task_enable_coroutine)",
            );
            false
        }
    }
}

/// What the worker does with a result: a waiting coroutine takes it, or a
/// per-task callback, or (None) the server's `onFinish`.
pub enum FinishTarget {
    Taken,
    Callback(Zval),
    OnFinish,
}

pub fn route_finish(task_id: i64, data: &Zval) -> FinishTarget {
    if let Some(cid) = with(|t| t.waiters.remove(&task_id)) {
        with(|t| t.results.insert(task_id, data.shallow_clone()));
        coro::resume_kind(cid, WaitKind::Io, Wake::Resumed);
        return FinishTarget::Taken;
    }
    match with(|t| t.finish_cbs.remove(&task_id)) {
        Some(cb) => FinishTarget::Callback(cb),
        None => FinishTarget::OnFinish,
    }
}

/// Sends every task and waits (suspending the coroutine, or blocking the
/// worker outside one) for their results until `timeout`. Results in
/// input order; None for a task that failed or timed out. `multi`:
/// `taskWaitMulti()` (its tasks carry `SWOOLE_TASK_WAITALL` when blocking).
pub fn wait_all(tasks: &[&Zval], timeout: Duration, dst: i64, multi: bool) -> Vec<Option<Zval>> {
    let cid = coro::current();
    let mode = if cid >= 0 {
        FLAG_NONBLOCK | FLAG_COROUTINE
    } else if multi {
        FLAG_WAITALL
    } else {
        0
    };
    let ids: Vec<Option<i64>> = tasks
        .iter()
        .map(|t| send_task(t, dst, None, mode))
        .collect();
    let deadline = Instant::now() + timeout;
    if cid < 0 {
        return ids
            .iter()
            .map(|id| {
                let id = (*id)?;
                let left = deadline.saturating_duration_since(Instant::now());
                let m = ipc::wait_blocking(|m| m.kind == Kind::Finish && m.id == id, left)?;
                unpack(&m.data, m.flags).ok()
            })
            .collect();
    }
    for id in ids.iter().flatten() {
        with(|t| t.waiters.insert(*id, cid));
    }
    loop {
        let missing = ids
            .iter()
            .flatten()
            .any(|id| with(|t| !t.results.contains_key(id)));
        let left = deadline.saturating_duration_since(Instant::now());
        if !missing || left.is_zero() {
            break;
        }
        match coro::wait(WaitKind::Io, Some(left)) {
            Ok(Wake::Resumed) => {}
            Ok(Wake::Timeout) | Err(_) => break,
        }
    }
    ids.iter()
        .map(|id| {
            let id = (*id)?;
            with(|t| {
                t.waiters.remove(&id);
                t.results.remove(&id)
            })
        })
        .collect()
}

/// `Swoole\Server\Task`: what `onTask` gets with `task_enable_coroutine`.
#[php_class]
#[php(name = "Swoole\\Server\\Task")]
pub struct Task {
    id: i64,
    worker_id: i64,
    flags: i64,
    dispatch_time: f64,
    data: Zval,
}

impl Task {
    pub fn new(id: i64, worker_id: i32, flags: u32, data: Zval) -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        Task {
            id,
            worker_id: worker_id as i64,
            flags: flags as i64,
            dispatch_time: now,
            data,
        }
    }
}

#[php_impl]
impl Task {
    /// Swoole's task packet of `$data` (for a `task_ipc_mode` 3 queue);
    /// false when the value cannot be serialized.
    pub fn pack(data: &Zval) -> Zval {
        let mut z = Zval::new();
        let Some((bytes, flags)) = pack(data) else {
            z.set_bool(false);
            return z;
        };
        match encode_packet(ipc::next_task_id(), &bytes, flags) {
            Ok(p) => bytes_zval(&p),
            Err(e) => {
                php_error(&ErrorType::Warning, &format!("large task pack failed: {e}"));
                z.set_bool(false);
                z
            }
        }
    }

    /// The value of a packet from `pack()`; false for anything else.
    pub fn unpack(data: &Zval) -> Zval {
        let mut f = Zval::new();
        f.set_bool(false);
        let Some(s) = data.zend_str() else {
            return f;
        };
        let Some((data, flags)) = decode_packet(s.as_bytes()) else {
            return f;
        };
        unpack(&data, flags).unwrap_or(f)
    }

    /// Sends the result to the worker that dispatched the task.
    pub fn finish(&self, data: &Zval) -> bool {
        send_finish(self.id, self.worker_id as i32, data)
    }

    /// Getters in Swoole's property order (`var_dump()` shows them so).
    #[php(getter, name = "data")]
    pub fn prop_data(&self) -> Zval {
        self.data.shallow_clone()
    }

    #[php(getter, name = "dispatch_time")]
    pub fn prop_dispatch_time(&self) -> f64 {
        self.dispatch_time
    }

    #[php(getter, name = "id")]
    pub fn prop_id(&self) -> i64 {
        self.id
    }

    #[php(getter, name = "worker_id")]
    pub fn prop_worker_id(&self) -> i64 {
        // A task the master sent says 0, as Swoole's do.
        self.worker_id.max(0)
    }

    #[php(getter, name = "flags")]
    pub fn prop_flags(&self) -> i64 {
        self.flags
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Task>()
}
