//! The master of a `Swoole\Process\Pool`: forks `worker_num` workers,
//! forks a worker again when it exits (or detaches), restarts them all on
//! SIGUSR1, and stops them on SIGTERM/SIGINT or `shutdown()`.
//!
//! Like the server's supervisor (`engine::proc::supervisor`) the master starts no
//! thread: it sleeps in `poll()` on a self-pipe its signal handlers write
//! to, and on a notice pipe on which workers announce that they detached;
//! between rounds it lets the PHP layer run the master's own timers
//! (`PoolHooks::run_events`). States of a worker: Running -> (exited: Respawn, or gone
//! while stopping) and Running -> Detached (forgotten, replaced at once).

use std::collections::HashMap;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use crate::engine::proc::user::{self as user_process, Forked};

static STOP: AtomicBool = AtomicBool::new(false);
static RELOAD: AtomicBool = AtomicBool::new(false);
static WAKE_WR: AtomicI32 = AtomicI32::new(-1);
static NOTICE_WR: AtomicI32 = AtomicI32::new(-1);
static MASTER_PID: AtomicI32 = AtomicI32::new(-1);

/// In a worker: SIGTERM arrived.
static W_STOP: AtomicBool = AtomicBool::new(false);
static W_WAKE_WR: AtomicI32 = AtomicI32::new(-1);

/// A worker that dies this soon after its fork is replaced after a pause.
const QUICK_DEATH: Duration = Duration::from_millis(500);
const RESPAWN_PAUSE: Duration = Duration::from_millis(100);

/// What the pool's user code does, called by the master.
pub trait PoolHooks {
    /// In the master, before the workers are forked.
    fn on_start(&self) {}
    /// In the master, when the pool stops, before the workers are told.
    fn on_shutdown(&self) {}
    /// In a new worker, right after the fork: runs worker `id` and leaves
    /// the process (through `user_process::run_child`).
    fn run_worker(&self, id: usize) -> !;
    /// In the master, between supervision rounds: runs the master's event
    /// loop (timers set in `onStart`, their coroutines) for at most `max`.
    /// False when it has nothing to run (the master then sleeps in poll).
    fn run_events(&self, _max: Duration) -> bool {
        false
    }
}

pub struct PoolConfig {
    pub worker_num: usize,
    /// How long stopping workers may take before they are killed.
    pub max_wait: Duration,
}

pub fn master_pid() -> i32 {
    MASTER_PID.load(Ordering::SeqCst)
}

fn wake(fd: &AtomicI32) {
    let fd = fd.load(Ordering::SeqCst);
    if fd >= 0 {
        let b = 1u8;
        // SAFETY: one byte from a local (async-signal-safe).
        unsafe { libc::write(fd, (&raw const b).cast(), 1) };
    }
}

extern "C" fn on_master_signal(sig: libc::c_int) {
    // SAFETY: errno is thread-local; saved and restored around write().
    let saved = unsafe { *libc::__errno_location() };
    match sig {
        libc::SIGTERM | libc::SIGINT => STOP.store(true, Ordering::SeqCst),
        libc::SIGUSR1 => RELOAD.store(true, Ordering::SeqCst),
        _ => {}
    }
    wake(&WAKE_WR);
    // SAFETY: see above.
    unsafe { *libc::__errno_location() = saved };
}

extern "C" fn on_worker_signal(_sig: libc::c_int) {
    // SAFETY: errno is thread-local; saved and restored around write().
    let saved = unsafe { *libc::__errno_location() };
    W_STOP.store(true, Ordering::SeqCst);
    wake(&W_WAKE_WR);
    // SAFETY: see above.
    unsafe { *libc::__errno_location() = saved };
}

fn set_handler(sig: i32, handler: libc::sighandler_t) {
    let _ = crate::engine::sys::signal::set_handler(sig, handler);
}

fn pipe() -> std::io::Result<(RawFd, RawFd)> {
    crate::engine::sys::signal::pipe()
}

fn drain(fd: RawFd) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 256];
    loop {
        // SAFETY: reads into a live local buffer; the pipe is non-blocking.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            return out;
        }
        out.extend_from_slice(&buf[..n as usize]);
    }
}

/// `$pool->shutdown()` in the master (e.g. from `onStart`).
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
    wake(&WAKE_WR);
}

/// In a worker, once after the fork: SIGTERM (and SIGINT) set the stop
/// flag and write to the returned pipe, which the worker's wait polls.
pub fn worker_setup() -> RawFd {
    W_STOP.store(false, Ordering::SeqCst);
    let (rd, wr) = pipe().unwrap_or((-1, -1));
    W_WAKE_WR.store(wr, Ordering::SeqCst);
    for sig in [libc::SIGTERM, libc::SIGINT] {
        set_handler(sig, on_worker_signal as *const () as libc::sighandler_t);
    }
    rd
}

/// In a worker: it was told to stop (or `stop()` was called).
pub fn worker_stopping() -> bool {
    W_STOP.load(Ordering::SeqCst)
}

/// In a worker: stop at the next chance (`$pool->stop()`).
pub fn worker_stop() {
    W_STOP.store(true, Ordering::SeqCst);
    wake(&W_WAKE_WR);
}

/// In a worker: tell the master to replace us and forget us.
pub fn detach() -> bool {
    let fd = NOTICE_WR.load(Ordering::SeqCst);
    if fd < 0 {
        return false;
    }
    let pid = std::process::id() as i32;
    let b = pid.to_ne_bytes();
    // SAFETY: a 4-byte pipe write (atomic: under PIPE_BUF) from a local.
    let n = unsafe { libc::write(fd, b.as_ptr().cast(), b.len()) };
    n == 4
}

struct Worker {
    id: usize,
    started: Instant,
}

/// The pid of every worker by id, in an anonymous shared mapping made by
/// the master before the first fork (so a worker's `getProcess($other)`
/// sees replacements too). Pointer and length; null outside a pool.
static PIDS: std::sync::atomic::AtomicPtr<AtomicI32> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());
static PIDS_LEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn map_pids(n: usize) {
    let len = n.max(1) * std::mem::size_of::<AtomicI32>();
    let Ok(p) = crate::engine::shared::shm_lock::map_shared(len) else {
        return;
    };
    PIDS.store(p.cast(), Ordering::SeqCst);
    PIDS_LEN.store(n, Ordering::SeqCst);
}

fn unmap_pids() {
    let p = PIDS.swap(std::ptr::null_mut(), Ordering::SeqCst);
    let n = PIDS_LEN.swap(0, Ordering::SeqCst);
    if !p.is_null() {
        // SAFETY: the mapping `map_pids` made, of that length.
        unsafe { libc::munmap(p.cast(), n.max(1) * std::mem::size_of::<AtomicI32>()) };
    }
}

fn pid_slot(id: usize) -> Option<&'static AtomicI32> {
    let p = PIDS.load(Ordering::SeqCst);
    if p.is_null() || id >= PIDS_LEN.load(Ordering::SeqCst) {
        return None;
    }
    // SAFETY: `id` is within the mapping, which lives until the pool ends
    // (zeroed memory is a valid AtomicI32).
    Some(unsafe { &*p.add(id) })
}

/// In a new worker: records its own pid (the master does too, once fork
/// returned; whichever comes first).
pub fn set_worker_pid(id: usize) {
    if let Some(slot) = pid_slot(id) {
        slot.store(std::process::id() as i32, Ordering::SeqCst);
    }
}

/// The current pid of worker `id` (in the master and in every worker).
pub fn worker_pid(id: usize) -> Option<i32> {
    pid_slot(id)
        .map(|a| a.load(Ordering::SeqCst))
        .filter(|p| *p > 0)
}

/// Runs the pool in the calling process until it is stopped. Returns in the
/// master only.
pub fn run(cfg: &PoolConfig, hooks: &dyn PoolHooks) -> std::io::Result<()> {
    let (wake_rd, wake_wr) = pipe()?;
    let (notice_rd, notice_wr) = match pipe() {
        Ok(p) => p,
        Err(e) => {
            user_process::close_fd(wake_rd);
            user_process::close_fd(wake_wr);
            return Err(e);
        }
    };
    STOP.store(false, Ordering::SeqCst);
    RELOAD.store(false, Ordering::SeqCst);
    WAKE_WR.store(wake_wr, Ordering::SeqCst);
    NOTICE_WR.store(notice_wr, Ordering::SeqCst);
    MASTER_PID.store(std::process::id() as i32, Ordering::SeqCst);
    let sigs = [libc::SIGTERM, libc::SIGINT, libc::SIGUSR1, libc::SIGCHLD];
    for sig in sigs {
        set_handler(sig, on_master_signal as *const () as libc::sighandler_t);
    }
    map_pids(cfg.worker_num);
    hooks.on_start();

    let mut workers: HashMap<i32, Worker> = HashMap::new();
    let mut respawns: Vec<(Instant, usize)> = Vec::new();
    let mut stopping: Option<Instant> = None;
    let mut killed = false;
    let spawn = |id: usize, workers: &mut HashMap<i32, Worker>| -> std::io::Result<()> {
        match user_process::fork()? {
            Forked::Child => {
                for sig in sigs {
                    set_handler(sig, libc::SIG_DFL);
                }
                WAKE_WR.store(-1, Ordering::SeqCst);
                user_process::close_fd(wake_rd);
                user_process::close_fd(wake_wr);
                user_process::close_fd(notice_rd);
                hooks.run_worker(id)
            }
            Forked::Parent(pid) => {
                if let Some(slot) = pid_slot(id) {
                    slot.store(pid, Ordering::SeqCst);
                }
                workers.insert(
                    pid,
                    Worker {
                        id,
                        started: Instant::now(),
                    },
                );
                Ok(())
            }
        }
    };
    let mut result = Ok(());
    if !STOP.load(Ordering::SeqCst) {
        for id in 0..cfg.worker_num {
            if let Err(e) = spawn(id, &mut workers) {
                result = Err(e);
                STOP.store(true, Ordering::SeqCst);
                break;
            }
        }
    }
    loop {
        if STOP.swap(false, Ordering::SeqCst) && stopping.is_none() {
            hooks.on_shutdown();
            stopping = Some(Instant::now() + cfg.max_wait);
            respawns.clear();
            for pid in workers.keys() {
                let _ = user_process::kill(*pid, libc::SIGTERM);
            }
        }
        if RELOAD.swap(false, Ordering::SeqCst) && stopping.is_none() {
            crate::rlog!(Debug, "pool: reloading all workers");
            for pid in workers.keys() {
                let _ = user_process::kill(*pid, libc::SIGTERM);
            }
        }
        while let Some(st) = user_process::wait_any(false) {
            let Some(w) = workers.remove(&st.pid) else {
                continue;
            };
            if stopping.is_some() {
                continue;
            }
            let abnormal = st.code != 0 || (st.signal != 0 && st.signal != libc::SIGTERM);
            if abnormal {
                crate::rlog!(
                    Warning,
                    "worker#{}(pid={}) abnormal exit, status={}, signal={}",
                    w.id,
                    st.pid,
                    st.code,
                    st.signal
                );
            }
            let at = if abnormal && w.started.elapsed() < QUICK_DEATH {
                Instant::now() + RESPAWN_PAUSE
            } else {
                Instant::now()
            };
            respawns.push((at, w.id));
        }
        for rec in drain(notice_rd).chunks_exact(4) {
            let pid = i32::from_ne_bytes([rec[0], rec[1], rec[2], rec[3]]);
            if let Some(w) = workers.remove(&pid) {
                if stopping.is_none() {
                    respawns.push((Instant::now(), w.id));
                }
            }
        }
        match stopping {
            Some(deadline) => {
                if workers.is_empty() {
                    break;
                }
                if Instant::now() >= deadline && !killed {
                    for pid in workers.keys() {
                        let _ = user_process::kill(*pid, libc::SIGKILL);
                    }
                    killed = true;
                }
            }
            None => {
                let now = Instant::now();
                let due: Vec<usize> = respawns
                    .iter()
                    .filter(|(at, _)| *at <= now)
                    .map(|(_, id)| *id)
                    .collect();
                respawns.retain(|(at, _)| *at > now);
                for id in due {
                    if let Err(e) = spawn(id, &mut workers) {
                        crate::rlog!(Error, "pool: cannot fork worker#{id}: {e}");
                        respawns.push((Instant::now() + Duration::from_secs(1), id));
                    }
                }
            }
        }
        let mut timeout = 500i32;
        for (at, _) in &respawns {
            let ms = at.saturating_duration_since(Instant::now()).as_millis() as i32;
            timeout = timeout.min(ms.max(1));
        }
        if let Some(d) = stopping {
            let ms = d.saturating_duration_since(Instant::now()).as_millis() as i32;
            timeout = timeout.min(ms.max(1));
        }
        // The master's own timers (`Timer::after()` in onStart) run here,
        // in short slices, so signals and exits are still seen promptly.
        if hooks.run_events(Duration::from_millis(timeout.clamp(1, 20) as u64)) {
            timeout = 0;
        }
        let user_sig = user_process::listen_fd().unwrap_or(-1);
        let ready = user_process::poll_readable(&[wake_rd, notice_rd, user_sig], timeout);
        if ready[2] {
            user_process::dispatch_now();
        }
        drain(wake_rd);
    }
    for sig in sigs {
        set_handler(sig, libc::SIG_DFL);
    }
    WAKE_WR.store(-1, Ordering::SeqCst);
    NOTICE_WR.store(-1, Ordering::SeqCst);
    MASTER_PID.store(-1, Ordering::SeqCst);
    unmap_pids();
    for fd in [wake_rd, wake_wr, notice_rd, notice_wr] {
        user_process::close_fd(fd);
    }
    result
}
