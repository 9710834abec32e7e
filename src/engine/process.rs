//! The master process of BASE mode: it forks the workers and task workers
//! (before any runtime or thread exists), replaces any that die, reloads them gracefully, recycles
//! them (`max_request`, `max_worker_memory`) and stops them on SIGTERM/SIGINT.
//!
//! The master runs no event loop and starts no thread: it sleeps in `poll()`
//! on two pipes. Its signal handlers set atomics and write a byte to a
//! self-pipe (the "wake" pipe), so a signal or a child's death ends the poll
//! at once. Workers write fixed 8-byte notices to the "control" pipe
//! (`Ready` once `workerStart` returned, `Retire` when they want to be
//! replaced). The reload protocol is in docs/internals.md.

use std::collections::{HashMap, HashSet};
use std::net::TcpListener;
use std::os::fd::RawFd;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::Signal;
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::{fork, ForkResult, Pid};

use super::config::{Mode, ServerConfig};
use super::error::{Error, Result};
use super::hooks::Hooks;
use super::listener::{Port, PortKind, PortSocket};
use super::log::{self, Role};
use super::{ipc, reactor, session, stats, worker};

static MASTER_PID: AtomicI32 = AtomicI32::new(0);
static MANAGER_PID: AtomicI32 = AtomicI32::new(0);

static GOT_TERM: AtomicBool = AtomicBool::new(false);
static GOT_RELOAD: AtomicBool = AtomicBool::new(false);
static GOT_RELOAD_TASK: AtomicBool = AtomicBool::new(false);
static GOT_REOPEN: AtomicBool = AtomicBool::new(false);
/// Write end of the master's self-pipe; -1 outside the master.
static WAKE_WR: AtomicI32 = AtomicI32::new(-1);
/// Write end of the worker -> master notice pipe; inherited by workers.
static CONTROL_WR: AtomicI32 = AtomicI32::new(-1);

/// How long a replacement may take to become ready before the worker it
/// replaces is stopped anyway.
const READY_TIMEOUT: Duration = Duration::from_secs(10);
/// A worker that dies this soon after its fork is replaced after a pause.
const QUICK_DEATH: Duration = Duration::from_millis(500);
const RESPAWN_PAUSE: Duration = Duration::from_millis(100);

/// `Server::addProcess()`: how many user processes, and what one runs (index
/// among them, worker id) in its forked child. They take the ids after the
/// task workers, are respawned like workers, are not reloaded.
#[derive(Clone)]
pub struct UserProcesses {
    pub count: usize,
    pub run: Rc<dyn Fn(usize, usize) -> i32>,
}

thread_local! {
    static USER_PROCS: Box<std::cell::RefCell<Option<UserProcesses>>> = Box::new(std::cell::RefCell::new(None));
}

/// Set by the PHP layer before `run_ports`; `None` clears.
pub fn set_user_processes(p: Option<UserProcesses>) {
    USER_PROCS.with(|u| *u.borrow_mut() = p);
}

fn user_processes() -> Option<UserProcesses> {
    USER_PROCS.with(|u| u.borrow().clone())
}

fn user_process_count() -> usize {
    user_processes().map_or(0, |u| u.count)
}

pub fn master_pid() -> i32 {
    MASTER_PID.load(Ordering::Relaxed)
}

pub fn manager_pid() -> i32 {
    MANAGER_PID.load(Ordering::Relaxed)
}

/// Signals the PROCESS-mode master received since the last call.
#[derive(Debug, Default, Clone, Copy)]
pub struct Received {
    pub term: bool,
    pub reload: bool,
    pub reload_tasks: bool,
    pub reopen: bool,
}

/// PROCESS mode, in the master: our own handlers (atomics + a byte on the
/// returned pipe) for the signals the master acts on. tokio's signal streams
/// are not used there: after a script ran `Co\run()`, tokio's process-wide
/// signal pipe belongs to that runtime and the reactor's never woke up.
pub fn master_signal_pipe() -> std::io::Result<RawFd> {
    for flag in [&GOT_TERM, &GOT_RELOAD, &GOT_RELOAD_TASK, &GOT_REOPEN] {
        flag.store(false, Ordering::SeqCst);
    }
    let (rd, wr) = pipe()?;
    WAKE_WR.store(wr, Ordering::SeqCst);
    for sig in master_signals() {
        set_handler(sig, on_signal as *const () as libc::sighandler_t)?;
    }
    Ok(rd)
}

/// Takes the flags [`master_signal_pipe`]'s handlers set, and empties `rd`.
pub fn take_received(rd: RawFd) -> Received {
    let mut buf = [0u8; 64];
    // SAFETY: reads into a live local buffer; the pipe is non-blocking.
    while unsafe { libc::read(rd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    Received {
        term: GOT_TERM.swap(false, Ordering::SeqCst),
        reload: GOT_RELOAD.swap(false, Ordering::SeqCst),
        reload_tasks: GOT_RELOAD_TASK.swap(false, Ordering::SeqCst),
        reopen: GOT_REOPEN.swap(false, Ordering::SeqCst),
    }
}

/// Undoes [`master_signal_pipe`].
pub fn close_master_signal_pipe(rd: RawFd) {
    for sig in master_signals() {
        let _ = set_handler(sig, libc::SIG_DFL);
    }
    let wr = WAKE_WR.swap(-1, Ordering::SeqCst);
    close(wr);
    close(rd);
}

/// What a worker tells the master.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Notice {
    /// `workerStart` returned: the worker accepts connections.
    Ready = 1,
    /// The worker reached `max_request` or `max_worker_memory`: fork its
    /// replacement, then stop it.
    Retire = 2,
}

/// Sends `n` to the master. False when there is no master to tell (the
/// worker runs inside a test) or the pipe is unusable.
pub fn notify_master(n: Notice) -> bool {
    let fd = CONTROL_WR.load(Ordering::Relaxed);
    if fd < 0 {
        return false;
    }
    let mut buf = [0u8; 8];
    buf[0] = n as u8;
    buf[4..8].copy_from_slice(&(std::process::id() as i32).to_ne_bytes());
    // SAFETY: writes 8 bytes from a live local buffer; a pipe write of at
    // most PIPE_BUF bytes is atomic, so notices from workers never interleave.
    let w = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
    w == buf.len() as isize
}

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work here: atomics and write(2).
    // SAFETY: errno is thread-local; saved and restored around write().
    let saved = unsafe { *libc::__errno_location() };
    match sig {
        libc::SIGTERM | libc::SIGINT => GOT_TERM.store(true, Ordering::SeqCst),
        libc::SIGUSR1 => GOT_RELOAD.store(true, Ordering::SeqCst),
        libc::SIGUSR2 => GOT_RELOAD_TASK.store(true, Ordering::SeqCst),
        _ if sig == libc::SIGRTMIN() => GOT_REOPEN.store(true, Ordering::SeqCst),
        _ => {}
    }
    let fd = WAKE_WR.load(Ordering::SeqCst);
    if fd >= 0 {
        let b = 1u8;
        // SAFETY: write() is async-signal-safe; one byte from a local. A full
        // pipe (EAGAIN) is fine: the master is awake anyway.
        unsafe { libc::write(fd, (&raw const b).cast(), 1) };
    }
    // SAFETY: see above.
    unsafe { *libc::__errno_location() = saved };
}

fn master_signals() -> [libc::c_int; 6] {
    [
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGCHLD,
        libc::SIGRTMIN(),
    ]
}

/// Installs `handler` (a function, `SIG_DFL` or `SIG_IGN`) for `sig`
/// without `SA_RESTART`.
/// Installs `handler` (ours, `SIG_DFL` or `SIG_IGN`) for `sig`, without
/// `SA_RESTART`: a blocking call (sleep(), msgrcv()) returns, so the process
/// sees it must stop. The one sigaction() of the engine.
pub(crate) fn set_handler(sig: libc::c_int, handler: libc::sighandler_t) -> std::io::Result<()> {
    set_action(sig, handler, false)
}

/// `set_handler` with `SA_RESTART` when `restart` (`Swoole\Process::signal()`).
pub(crate) fn set_action(
    sig: libc::c_int,
    handler: libc::sighandler_t,
    restart: bool,
) -> std::io::Result<()> {
    // SAFETY: a zeroed sigaction is valid; every pointer passed is to a live
    // local; the handler, when it is ours, only touches atomics and write().
    let rc = unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = handler;
        sa.sa_flags = if restart { libc::SA_RESTART } else { 0 };
        if sig == libc::SIGCHLD {
            sa.sa_flags |= libc::SA_NOCLDSTOP;
        }
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(sig, &sa, std::ptr::null_mut())
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// A non-blocking, close-on-exec pipe: (read end, write end).
fn pipe() -> std::io::Result<(RawFd, RawFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the two-element array it is given.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) };
    if rc == 0 {
        Ok((fds[0], fds[1]))
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn close(fd: RawFd) {
    if fd >= 0 {
        // SAFETY: closes a descriptor this module created and owns.
        unsafe { libc::close(fd) };
    }
}

fn kill(pid: Pid, sig: Signal) {
    let _ = nix::sys::signal::kill(pid, sig);
}

/// One worker process as the master sees it.
struct Proc {
    id: usize,
    slot: Option<usize>,
    started: Instant,
    ready: bool,
    /// A replacement: the worker to stop once this one is ready.
    replaces: Option<Pid>,
    /// A worker being replaced: its replacement.
    replaced_by: Option<Pid>,
    /// When SIGTERM was sent (the worker is draining).
    term_at: Option<Instant>,
    /// SIGKILLed by the master after `max_wait_time`.
    killed: bool,
}

struct Master<'a> {
    ports: &'a [Port],
    hooks: Rc<dyn Hooks>,
    cfg: Rc<ServerConfig>,
    workers: HashMap<Pid, Proc>,
    /// Workers a running reload still waits for.
    reloading: Option<HashSet<Pid>>,
    /// A reload was asked for while one was running.
    reload_again: bool,
    /// Set on SIGTERM: the deadline after which every worker is killed.
    stopping: Option<Instant>,
    killed_all: bool,
    /// Worker ids to fork again at the given time.
    respawns: Vec<(Instant, usize)>,
    wake_rd: RawFd,
    ctl_rd: RawFd,
    /// BASE mode: this process is also the master (`beforeShutdown` is
    /// fired here); false in PROCESS mode's manager.
    is_master: bool,
}

impl Master<'_> {
    fn spawn(&mut self, id: usize, replaces: Option<Pid>) -> Result<Pid> {
        let slot = stats::alloc_slot(id);
        // SAFETY: the master is single-threaded (no runtime, no thread was
        // ever started in it), which is what makes fork() sound.
        match unsafe { fork() } {
            Ok(ForkResult::Child) => {
                WAKE_WR.store(-1, Ordering::SeqCst);
                super::timer::forget_inherited();
                super::event_loop::forget_runtime();
                // Workers take SIGTERM/SIGINT through tokio; reload signals
                // are the master's business.
                for sig in master_signals() {
                    let _ = set_handler(sig, libc::SIG_DFL);
                }
                let _ = set_handler(libc::SIGUSR1, libc::SIG_IGN);
                let _ = set_handler(libc::SIGUSR2, libc::SIG_IGN);
                // Until the worker's runtime listens for it (log reopen).
                let _ = set_handler(libc::SIGRTMIN(), libc::SIG_IGN);
                close(self.wake_rd);
                close(self.ctl_rd);
                stats::enter_slot(slot);
                ipc::enter(id as i32);
                isolate(&self.cfg);
                let first_user = self.cfg.total_workers();
                if id >= first_user {
                    let code = match user_processes() {
                        Some(u) => (u.run)(id - first_user, id),
                        None => 0,
                    };
                    self.hooks.before_process_exit();
                    // SAFETY: leaving the forked child, as a worker does.
                    unsafe { libc::_exit(code) }
                }
                // Task workers serve no port.
                let mut ports = Vec::new();
                if id < self.cfg.worker_num.max(1) {
                    for p in self.ports {
                        match p.try_clone() {
                            Ok(p) => ports.push(p),
                            Err(e) => {
                                crate::rlog!(Error, "worker#{id}: dup listener: {e}");
                                // SAFETY: _exit ends the child without running the parent's atexit state.
                                unsafe { libc::_exit(1) }
                            }
                        }
                    }
                }
                let code = worker::run_ports(id, ports, self.cfg.clone(), self.hooks.clone());
                self.hooks.before_process_exit();
                // SAFETY: leaving the forked child; nothing of the parent's
                // state should be flushed or destroyed twice.
                unsafe { libc::_exit(code) }
            }
            Ok(ForkResult::Parent { child }) => {
                if let Some(s) = slot {
                    stats::set_slot_pid(s, child.as_raw());
                }
                self.workers.insert(
                    child,
                    Proc {
                        id,
                        slot,
                        started: Instant::now(),
                        ready: false,
                        replaces,
                        replaced_by: None,
                        term_at: None,
                        killed: false,
                    },
                );
                Ok(child)
            }
            Err(e) => {
                if let Some(s) = slot {
                    stats::free_slot(s);
                }
                Err(Error::process("fork()", e.into()))
            }
        }
    }

    fn kill_all(&self, sig: Signal) {
        for pid in self.workers.keys() {
            kill(*pid, sig);
        }
    }

    /// Forks a replacement for `old`; `old` gets SIGTERM once it is ready.
    fn replace(&mut self, old: Pid) -> bool {
        let Some(p) = self.workers.get(&old) else {
            return false;
        };
        if p.term_at.is_some() || p.replaced_by.is_some() {
            return false;
        }
        let id = p.id;
        match self.spawn(id, Some(old)) {
            Ok(new) => {
                if let Some(p) = self.workers.get_mut(&old) {
                    p.replaced_by = Some(new);
                }
                true
            }
            Err(e) => {
                crate::rlog!(
                    Error,
                    "cannot fork a replacement for worker#{id} (pid={old}): {e}; it keeps serving"
                );
                false
            }
        }
    }

    /// Tells `pid` to drain and exit.
    fn retire(&mut self, pid: Pid) {
        if let Some(p) = self.workers.get_mut(&pid) {
            if p.term_at.is_none() {
                p.term_at = Some(Instant::now());
                kill(pid, Signal::SIGTERM);
            }
        }
    }

    fn on_term(&mut self) {
        if self.stopping.is_some() {
            crate::rlog!(Warning, "second stop signal: killing workers");
            self.kill_all(Signal::SIGKILL);
            self.killed_all = true;
            return;
        }
        if self.is_master {
            self.hooks.on_before_shutdown();
        }
        // One extra second so a worker's own max_wait_time runs out first.
        self.stopping = Some(Instant::now() + self.cfg.max_wait_time + Duration::from_secs(1));
        self.reloading = None;
        self.reload_again = false;
        self.respawns.clear();
        self.kill_all(Signal::SIGTERM);
    }

    fn start_reload(&mut self, only_tasks: bool) {
        if self.stopping.is_some() {
            return;
        }
        if self.reloading.is_some() {
            crate::rlog!(
                Info,
                "a reload is in progress; the next one starts when it ends"
            );
            self.reload_again = true;
            return;
        }
        if only_tasks {
            crate::rlog!(Info, "Server is reloading all task workers now");
        } else {
            crate::rlog!(Info, "Server is reloading all workers now");
        }
        self.hooks.on_before_reload();
        let first_task = self.cfg.worker_num.max(1);
        let current: Vec<Pid> = self
            .workers
            .iter()
            .filter(|(_, p)| p.term_at.is_none() && p.replaced_by.is_none())
            .filter(|(_, p)| p.id < self.cfg.total_workers())
            .filter(|(_, p)| !only_tasks || p.id >= first_task)
            .map(|(pid, _)| *pid)
            .collect();
        let mut waiting = HashSet::new();
        for old in current {
            if self.replace(old) {
                waiting.insert(old);
            }
        }
        self.reloading = Some(waiting);
        self.check_reload_done();
    }

    /// `old` was replaced (it exited) or will not be (its replacement failed).
    fn old_done(&mut self, old: Pid) {
        if let Some(set) = self.reloading.as_mut() {
            set.remove(&old);
        }
        self.check_reload_done();
    }

    fn check_reload_done(&mut self) {
        if self.reloading.as_ref().is_some_and(HashSet::is_empty) {
            self.reloading = None;
            crate::rlog!(Info, "reload finished");
            self.hooks.on_after_reload();
            if std::mem::take(&mut self.reload_again) {
                self.start_reload(false);
            }
        }
    }

    fn on_notice(&mut self, kind: u8, pid: Pid) {
        if kind == Notice::Ready as u8 {
            let old = match self.workers.get_mut(&pid) {
                Some(p) => {
                    p.ready = true;
                    p.replaces.take()
                }
                None => None,
            };
            if let Some(old) = old {
                self.retire(old);
            }
        } else if kind == Notice::Retire as u8 && self.stopping.is_none() && self.replace(pid) {
            crate::rlog!(Info, "worker(pid={pid}) is being replaced");
        }
    }

    fn read_notices(&mut self) {
        let mut buf = [0u8; 8 * 64];
        loop {
            // SAFETY: reads into a live local buffer of the given size.
            let n = unsafe { libc::read(self.ctl_rd, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            for rec in buf[..n as usize].chunks_exact(8) {
                let pid = i32::from_ne_bytes([rec[4], rec[5], rec[6], rec[7]]);
                self.on_notice(rec[0], Pid::from_raw(pid));
            }
            if (n as usize) < buf.len() {
                break;
            }
        }
    }

    fn drain_wake(&self) {
        let mut buf = [0u8; 64];
        // SAFETY: reads into a live local buffer; the pipe is non-blocking.
        while unsafe { libc::read(self.wake_rd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    }

    fn reap_all(&mut self) -> Result<()> {
        loop {
            match waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::Exited(pid, code)) => self.reap(pid, code, 0)?,
                Ok(WaitStatus::Signaled(pid, sig, _)) => self.reap(pid, 0, sig as i32)?,
                Ok(WaitStatus::StillAlive) => return Ok(()),
                Ok(_) => {}
                Err(Errno::EINTR) => {}
                Err(Errno::ECHILD) => {
                    // Nothing left to wait for (someone else reaped them).
                    for (_, p) in self.workers.drain() {
                        if let Some(s) = p.slot {
                            stats::free_slot(s);
                        }
                    }
                    return Ok(());
                }
                Err(e) => return Err(Error::process("waitpid()", e.into())),
            }
        }
    }

    fn reap(&mut self, pid: Pid, code: i32, sig: i32) -> Result<()> {
        let Some(p) = self.workers.remove(&pid) else {
            return Ok(());
        };
        if let Some(s) = p.slot {
            let seen = if code != 0 || sig != 0 {
                stats::ExitReason::Crash
            } else if p.term_at.is_some() {
                stats::ExitReason::Reload
            } else {
                stats::ExitReason::Stopped
            };
            stats::note_exit(s, p.id, seen);
            stats::free_slot(s);
        }
        if self.stopping.is_some() {
            return Ok(());
        }
        let id = p.id;
        let abnormal = (code != 0 || sig != 0) && !p.killed;
        let report = |m: &Self| {
            crate::rlog!(
                Warning,
                "Manager::wait(): worker(pid={pid}, id={id}) abnormal exit, status={code}, signal={sig}"
            );
            m.hooks.on_worker_error(id, pid.as_raw(), code, sig);
        };

        // An old worker (drained after a reload or a recycle, or one that
        // died while its replacement was starting): never forked again.
        if p.term_at.is_some() || p.replaced_by.is_some() {
            if let Some(new) = p.replaced_by {
                if let Some(n) = self.workers.get_mut(&new) {
                    if n.replaces == Some(pid) {
                        n.replaces = None;
                    }
                }
            }
            if abnormal {
                report(self);
            }
            self.old_done(pid);
            return Ok(());
        }
        // A replacement that died before it was ready: the old worker keeps
        // serving, so a broken deploy does not take the server down.
        if let Some(old) = p.replaces {
            crate::rlog!(
                Error,
                "worker#{id}: the new worker (pid={pid}) exited before it was ready; the old one (pid={old}) keeps serving"
            );
            if abnormal {
                report(self);
            }
            if let Some(o) = self.workers.get_mut(&old) {
                o.replaced_by = None;
            }
            self.old_done(old);
            return Ok(());
        }
        if abnormal {
            report(self);
        }
        // A worker that dies at once (say, a fatal error in workerStart)
        // would otherwise be forked in a tight loop.
        let at = if p.started.elapsed() < QUICK_DEATH {
            Instant::now() + RESPAWN_PAUSE
        } else {
            Instant::now()
        };
        self.respawns.push((at, id));
        Ok(())
    }

    fn run_respawns(&mut self) -> Result<()> {
        let now = Instant::now();
        let due: Vec<usize> = self
            .respawns
            .iter()
            .filter(|(at, _)| *at <= now)
            .map(|(_, id)| *id)
            .collect();
        self.respawns.retain(|(at, _)| *at > now);
        for id in due {
            self.spawn(id, None)?;
        }
        Ok(())
    }

    fn check_deadlines(&mut self) {
        let now = Instant::now();
        let grace = self.cfg.max_wait_time + Duration::from_secs(1);
        if let Some(deadline) = self.stopping {
            if now >= deadline && !self.killed_all {
                crate::rlog!(
                    Warning,
                    "workers did not exit within max_wait_time: killing them"
                );
                self.kill_all(Signal::SIGKILL);
                self.killed_all = true;
            }
            return;
        }
        let mut late_ready = Vec::new();
        for (pid, p) in self.workers.iter_mut() {
            if let Some(t) = p.term_at {
                if !p.killed && now >= t + grace {
                    crate::rlog!(
                        Warning,
                        "worker#{}(pid={pid}) did not exit within max_wait_time: killing it",
                        p.id
                    );
                    kill(*pid, Signal::SIGKILL);
                    p.killed = true;
                }
            }
            if !p.ready && p.replaces.is_some() && now >= p.started + READY_TIMEOUT {
                crate::rlog!(
                    Warning,
                    "worker#{}(pid={pid}) is not ready after {}s; stopping the worker it replaces anyway",
                    p.id,
                    READY_TIMEOUT.as_secs()
                );
                late_ready.extend(p.replaces.take());
            }
        }
        for old in late_ready {
            self.retire(old);
        }
    }

    /// Milliseconds poll() may sleep before a deadline needs a look.
    fn poll_timeout(&self) -> i32 {
        let mut next = Instant::now() + Duration::from_millis(500);
        for (at, _) in &self.respawns {
            next = next.min(*at);
        }
        if let Some(d) = self.stopping {
            next = next.min(d);
        }
        if super::timer::pending() > 0 {
            next = next.min(Instant::now() + Duration::from_millis(5));
        }
        let left = next.saturating_duration_since(Instant::now());
        (left.as_millis() as i32).clamp(1, 500)
    }
}

/// In a new worker: `chroot`, `group`, `user` (only when running as root,
/// as Swoole). A failure is logged and the worker carries on, as in Swoole.
fn isolate(cfg: &ServerConfig) {
    if !nix::unistd::geteuid().is_root() {
        return;
    }
    if let Some(dir) = &cfg.chroot {
        match nix::unistd::chroot(dir.as_str()) {
            Ok(()) => {
                let _ = std::env::set_current_dir("/");
            }
            Err(e) => crate::rlog!(Warning, "chroot('{dir}') failed: {e}"),
        }
    }
    if let Some(name) = &cfg.group {
        match nix::unistd::Group::from_name(name) {
            Ok(Some(g)) => {
                if let Err(e) =
                    nix::unistd::setgroups(&[g.gid]).and_then(|_| nix::unistd::setgid(g.gid))
                {
                    crate::rlog!(Warning, "setgid to [{name}] failed: {e}");
                }
            }
            _ => crate::rlog!(Warning, "get group [{name}] info failed"),
        }
    }
    if let Some(name) = &cfg.user {
        match nix::unistd::User::from_name(name) {
            Ok(Some(u)) => {
                if cfg.group.is_none() {
                    // Without `group`, take the user's primary group, so the
                    // process does not keep root's.
                    let _ =
                        nix::unistd::setgroups(&[u.gid]).and_then(|_| nix::unistd::setgid(u.gid));
                }
                if let Err(e) = nix::unistd::setuid(u.uid) {
                    crate::rlog!(Warning, "setuid to [{name}] failed: {e}");
                }
            }
            _ => crate::rlog!(Warning, "get user [{name}] info failed"),
        }
    }
}

/// Detaches the master from the terminal, as Swoole's `daemonize`: fork (the
/// original process leaves with status 0), `setsid()`, stdin from /dev/null,
/// stdout and stderr to `log_file` (or /dev/null), working directory `/`.
fn daemonize(cfg: &mut ServerConfig) -> Result<()> {
    // Relative paths must survive the chdir.
    if let Some(p) = cfg.pid_file.as_mut() {
        if p.is_relative() {
            if let Ok(cwd) = std::env::current_dir() {
                *p = cwd.join(&*p);
            }
        }
    }
    let out = cfg
        .log_file
        .as_ref()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/dev/null"));
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&out)
        .map_err(|e| Error::io(format!("daemonize: open {}", out.display()), e))?;
    let null =
        std::fs::File::open("/dev/null").map_err(|e| Error::io("daemonize: open /dev/null", e))?;
    // SAFETY: no runtime and no thread exist yet in this process.
    match unsafe { fork() } {
        Ok(ForkResult::Parent { .. }) => {
            // SAFETY: the original process leaves at once, as in Swoole; the
            // daemon child carries on with the PHP state.
            unsafe { libc::_exit(0) }
        }
        Ok(ForkResult::Child) => {}
        Err(e) => return Err(Error::process("daemonize: fork()", e.into())),
    }
    nix::unistd::setsid().map_err(|e| Error::process("daemonize: setsid()", e.into()))?;
    use std::os::fd::AsRawFd;
    // SAFETY: dup2 onto the standard descriptors from files we hold open.
    unsafe {
        libc::dup2(null.as_raw_fd(), 0);
        libc::dup2(out.as_raw_fd(), 1);
        libc::dup2(out.as_raw_fd(), 2);
    }
    let _ = std::env::set_current_dir("/");
    Ok(())
}

/// Runs an HTTP server on `listener`; see [`run_ports`].
pub fn run(cfg: ServerConfig, listener: TcpListener, hooks: Rc<dyn Hooks>) -> Result<()> {
    let port = Port {
        index: 0,
        kind: PortKind::Http,
        socket: PortSocket::Tcp(listener),
        opts: Default::default(),
    };
    run_ports(cfg, vec![port], hooks)
}

/// Runs the server in the calling (master) process until it is stopped.
/// Returns in the master only; workers (and the manager) exit inside.
pub fn run_ports(mut cfg: ServerConfig, ports: Vec<Port>, hooks: Rc<dyn Hooks>) -> Result<()> {
    if cfg.daemonize {
        daemonize(&mut cfg)?;
    }
    let me = std::process::id() as i32;
    MASTER_PID.store(me, Ordering::Relaxed);
    MANAGER_PID.store(me, Ordering::Relaxed);
    log::set_role(Role::Master, 0);
    for flag in [&GOT_TERM, &GOT_RELOAD, &GOT_RELOAD_TASK, &GOT_REOPEN] {
        flag.store(false, Ordering::SeqCst);
    }
    if let Err(e) = stats::init() {
        crate::rlog!(Warning, "stats: cannot map shared memory: {e}");
    }
    if let Err(e) = session::init() {
        crate::rlog!(Warning, "sessions: cannot map shared memory: {e}");
    }
    ipc::setup(
        cfg.worker_num.max(1),
        cfg.task_worker_num,
        user_process_count(),
        cfg.task_tmpdir.clone(),
    )
    .map_err(|e| Error::process("socketpair()", e))?;
    if let Some(pid_file) = &cfg.pid_file {
        if let Err(e) = std::fs::write(pid_file, format!("{me}\n")) {
            ipc::teardown();
            return Err(Error::io(
                format!("write pid_file {}", pid_file.display()),
                e,
            ));
        }
    }
    // The OpenMetrics endpoint: its own process, forked before anything else.
    let metrics = super::metrics::spawn(&cfg);
    let result = if cfg.mode == Mode::Process {
        run_process_mode(&cfg, ports, hooks)
    } else {
        supervise(&cfg, &ports, hooks, true)
    };
    super::metrics::stop(metrics);
    ipc::teardown();
    if let Some(p) = &cfg.pid_file {
        let _ = std::fs::remove_file(p);
    }
    result
}

/// SWOOLE_PROCESS: forks the manager (which runs [`supervise`]), then runs
/// the reactor in this process. See [`super::reactor`].
fn run_process_mode(cfg: &ServerConfig, ports: Vec<Port>, hooks: Rc<dyn Hooks>) -> Result<()> {
    let channel = reactor::bind_channel().map_err(|e| Error::process("worker channel", e))?;
    // The workers get every port's description; only UDP sockets travel
    // (the master never reads datagrams), TCP ones stay here.
    let mut tcp = Vec::new();
    let mut for_workers = Vec::new();
    for p in ports {
        match p.socket {
            PortSocket::Tcp(l) => {
                for_workers.push(Port {
                    index: p.index,
                    kind: p.kind,
                    socket: PortSocket::Dispatched(l.local_addr().map(|a| a.port()).unwrap_or(0)),
                    opts: p.opts,
                });
                tcp.push((p.index, l));
            }
            PortSocket::Udp(_) | PortSocket::Dispatched(_) => for_workers.push(p),
        }
    }
    // SAFETY: no runtime and no thread exist in this process yet (the
    // reactor threads start below, in the parent only).
    let manager = match unsafe { fork() } {
        Ok(ForkResult::Child) => {
            drop(channel);
            drop(tcp);
            super::timer::forget_inherited();
            super::event_loop::forget_runtime();
            MANAGER_PID.store(std::process::id() as i32, Ordering::Relaxed);
            log::set_role(Role::Manager, 0);
            // A master that dies without stopping us must not leave an
            // orphaned manager respawning workers nobody can reach.
            // SAFETY: prctl with integer arguments only.
            unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) };
            if nix::unistd::getppid().as_raw() != master_pid() {
                // SAFETY: the master is already gone; leave at once.
                unsafe { libc::_exit(1) }
            }
            let code = match supervise(cfg, &for_workers, hooks.clone(), false) {
                Ok(()) => 0,
                Err(e) => {
                    crate::rlog!(Error, "manager: {e}");
                    1
                }
            };
            hooks.before_process_exit();
            // SAFETY: leaving the forked manager without running the
            // master's exit path (pid file, onShutdown) a second time.
            unsafe { libc::_exit(code) }
        }
        Ok(ForkResult::Parent { child }) => child,
        Err(e) => {
            reactor::clear_channel();
            return Err(Error::process("fork() of the manager", e.into()));
        }
    };
    drop(for_workers);
    MANAGER_PID.store(manager.as_raw(), Ordering::Relaxed);
    // Our handlers come later (run_master): hold a shutdown() made in onStart.
    reactor::hold_stop_signals(true);
    hooks.on_start();
    let r = reactor::run_master(cfg, tcp, channel, manager, hooks.clone());
    reactor::clear_channel();
    if r.is_ok() {
        hooks.on_shutdown();
    }
    r
}

/// Forks and supervises the workers until they all stopped: the whole
/// server in BASE mode (`master` true: it also fires `beforeShutdown`), the
/// manager process in PROCESS mode.
fn supervise(cfg: &ServerConfig, ports: &[Port], hooks: Rc<dyn Hooks>, master: bool) -> Result<()> {
    let (wake_rd, wake_wr) = pipe().map_err(|e| Error::process("pipe()", e))?;
    let (ctl_rd, ctl_wr) = match pipe() {
        Ok(p) => p,
        Err(e) => {
            close(wake_rd);
            close(wake_wr);
            return Err(Error::process("pipe()", e));
        }
    };
    WAKE_WR.store(wake_wr, Ordering::SeqCst);
    CONTROL_WR.store(ctl_wr, Ordering::SeqCst);
    let cleanup = || {
        for sig in master_signals() {
            let _ = set_handler(sig, libc::SIG_DFL);
        }
        WAKE_WR.store(-1, Ordering::SeqCst);
        CONTROL_WR.store(-1, Ordering::SeqCst);
        for fd in [wake_rd, wake_wr, ctl_rd, ctl_wr] {
            close(fd);
        }
    };
    for sig in master_signals() {
        if let Err(e) = set_handler(sig, on_signal as *const () as libc::sighandler_t) {
            cleanup();
            return Err(Error::process(format!("sigaction({sig})"), e));
        }
    }

    if master {
        hooks.on_start();
    }
    hooks.on_manager_start();

    let mut m = Master {
        ports,
        hooks: hooks.clone(),
        cfg: Rc::new(cfg.clone()),
        workers: HashMap::new(),
        reloading: None,
        reload_again: false,
        stopping: None,
        killed_all: false,
        respawns: Vec::new(),
        wake_rd,
        ctl_rd,
        is_master: master,
    };
    let result = master_loop(&mut m);
    if result.is_err() {
        m.kill_all(Signal::SIGKILL);
    }
    if result.is_ok() {
        hooks.on_manager_stop();
        if master {
            hooks.on_shutdown();
        }
    }
    cleanup();
    result
}

fn master_loop(m: &mut Master<'_>) -> Result<()> {
    for id in 0..m.cfg.total_workers() + user_process_count() {
        m.spawn(id, None)?;
    }
    loop {
        if GOT_REOPEN.swap(false, Ordering::SeqCst) {
            let _ = log::reopen();
            // Every process holds its own handle on the log file.
            for pid in m.workers.keys() {
                // SAFETY: kill() with a pid we forked; no memory involved.
                unsafe { libc::kill(pid.as_raw(), libc::SIGRTMIN()) };
            }
        }
        if GOT_TERM.swap(false, Ordering::SeqCst) {
            m.on_term();
        }
        if GOT_RELOAD.swap(false, Ordering::SeqCst) {
            m.start_reload(false);
        }
        if GOT_RELOAD_TASK.swap(false, Ordering::SeqCst) {
            if m.cfg.task_worker_num == 0 {
                crate::rlog!(Info, "SIGUSR2: there are no task workers to reload");
            } else {
                m.start_reload(true);
            }
        }
        m.reap_all()?;
        m.read_notices();
        m.check_deadlines();
        if m.stopping.is_some() {
            if m.workers.is_empty() {
                return Ok(());
            }
        } else {
            m.run_respawns()?;
        }
        // A `Process::signal()` callback set in onManagerStart/onStart.
        let user_sig = super::user_process::listen_fd().unwrap_or(-1);
        let mut fds = [
            libc::pollfd {
                fd: m.wake_rd,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: m.ctl_rd,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: user_sig,
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: polls descriptors we own through a live local array (a
        // negative fd is ignored by poll()).
        unsafe {
            libc::poll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                m.poll_timeout(),
            )
        };
        if fds[2].revents != 0 {
            super::user_process::dispatch_now();
        }
        m.drain_wake();
        // Timers of onStart (BASE mode) and onManagerStart: fired here,
        // between rounds (`poll_timeout` is short while any is pending).
        if super::timer::pending() > 0 {
            super::event_loop::run_for(Duration::from_millis(1));
        }
    }
}
