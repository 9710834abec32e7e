//! The supervisor: the master process of BASE mode, and the manager of
//! PROCESS mode. It forks the workers and task workers (before any runtime or
//! thread exists), replaces any that die, reloads them gracefully, recycles
//! them (`max_request`, `max_worker_memory`) and stops them on SIGTERM/SIGINT.
//!
//! The supervisor runs no event loop and starts no thread: it sleeps in
//! `poll()` on the wake pipe of its signal handlers (`sys::signal`) and on
//! the notice pipe its workers write to (`notice`). The reload protocol is in
//! docs/internals.md.

use std::collections::{HashMap, HashSet};
use std::net::TcpListener;
use std::os::fd::RawFd;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::Signal;
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::{fork, ForkResult, Pid};

use crate::engine::config::{Mode, ServerConfig};
use crate::engine::error::{Error, Result};
use crate::engine::hooks::Hooks;
use crate::engine::ipc::notice::{self, Notice};
use crate::engine::log::{self, Role};
use crate::engine::net::listener::{Port, PortKind, PortSocket};
use crate::engine::sys::signal::{self, close, pipe};
use crate::engine::{ipc, proc::reactor, shared::session, shared::stats, worker};

static MASTER_PID: AtomicI32 = AtomicI32::new(0);
static MANAGER_PID: AtomicI32 = AtomicI32::new(0);

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

fn kill(pid: Pid, sig: Signal) {
    let _ = nix::sys::signal::kill(pid, sig);
}

/// One worker process as the master sees it.
struct Proc {
    id: usize,
    slot: Option<usize>,
    started: Instant,
    state: ChildState,
    /// A replacement: the worker to stop once this one is ready.
    replaces: Option<Pid>,
}

/// Where one child is in its life, as the supervisor sees it. Every change
/// goes through [`Proc::transition`], which refuses (and logs) a move the
/// table in docs/internals.md ("Supervisor: child states") does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChildState {
    /// Forked; its `workerStart` has not returned yet.
    Starting,
    /// Sent `Ready`: it serves.
    Serving,
    /// Still serving while its replacement `by` starts (reload, recycle);
    /// `ready` as in `Serving` vs `Starting`.
    Replaced { by: Pid, ready: bool },
    /// Told to drain and exit (SIGTERM at `since`).
    Draining { since: Instant },
    /// Did not exit within `max_wait_time` after SIGTERM: SIGKILLed.
    Killed,
}

impl ChildState {
    fn is_ready(self) -> bool {
        matches!(
            self,
            ChildState::Serving | ChildState::Replaced { ready: true, .. }
        )
    }

    /// Told to stop: draining, or killed.
    fn is_stopping(self) -> bool {
        matches!(self, ChildState::Draining { .. } | ChildState::Killed)
    }
}

impl Proc {
    /// Moves to `to` if the state machine allows it; false (and a log line)
    /// if not, with the state unchanged.
    fn transition(&mut self, to: ChildState) -> bool {
        use ChildState::*;
        let ok = match (self.state, to) {
            (Starting, Serving | Replaced { ready: false, .. } | Draining { .. }) => true,
            (Serving, Replaced { ready: true, .. } | Draining { .. }) => true,
            // Ready while replaced; or the replacement failed (back to what
            // it was); or told to drain.
            (
                Replaced { by, .. },
                Replaced {
                    by: by2,
                    ready: true,
                },
            ) => by == by2,
            (Replaced { ready: true, .. }, Serving) => true,
            (Replaced { ready: false, .. }, Starting) => true,
            (Replaced { .. }, Draining { .. }) => true,
            (Draining { .. }, Killed) => true,
            _ => false,
        };
        if ok {
            self.state = to;
        } else {
            crate::rlog!(
                Debug,
                "worker#{}: no transition from {:?} to {:?}",
                self.id,
                self.state,
                to
            );
        }
        ok
    }
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
                signal::forget_in_child();
                crate::engine::rt::timer::forget_inherited();
                crate::engine::rt::event_loop::forget_runtime();
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
                // Task workers serve no port; they keep the UDP ones to
                // send from (`sendto()` in `onTask`).
                let mut ports = Vec::new();
                let worker = id < self.cfg.worker_num.max(1);
                for p in self.ports {
                    if worker || matches!(p.socket, PortSocket::Udp(_)) {
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
                        state: ChildState::Starting,
                        replaces,
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
        if !matches!(p.state, ChildState::Starting | ChildState::Serving) {
            return false;
        }
        let id = p.id;
        match self.spawn(id, Some(old)) {
            Ok(new) => {
                if let Some(p) = self.workers.get_mut(&old) {
                    let ready = p.state.is_ready();
                    p.transition(ChildState::Replaced { by: new, ready });
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
            if p.transition(ChildState::Draining {
                since: Instant::now(),
            }) {
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
        // Draining workers close idle connections at once: nobody replaces them.
        stats::set_server_stopping();
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
            .filter(|(_, p)| matches!(p.state, ChildState::Starting | ChildState::Serving))
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
            crate::rlog!(Debug, "reload finished");
            self.hooks.on_after_reload();
            if std::mem::take(&mut self.reload_again) {
                self.start_reload(false);
            }
        }
    }

    fn on_notice(&mut self, kind: Notice, pid: Pid) {
        if kind == Notice::Ready {
            let old = match self.workers.get_mut(&pid) {
                Some(p) => {
                    let ready = match p.state {
                        ChildState::Replaced { by, .. } => ChildState::Replaced { by, ready: true },
                        _ => ChildState::Serving,
                    };
                    p.transition(ready);
                    p.replaces.take()
                }
                None => None,
            };
            if let Some(old) = old {
                self.retire(old);
            }
        } else if kind == Notice::Retire && self.stopping.is_none() && self.replace(pid) {
            crate::rlog!(Info, "worker(pid={pid}) is being replaced");
        }
    }

    fn read_notices(&mut self) {
        let mut got = Vec::new();
        notice::read_all(self.ctl_rd, |kind, pid| got.push((kind, pid)));
        for (kind, pid) in got {
            self.on_notice(kind, Pid::from_raw(pid));
        }
    }

    fn drain_wake(&self) {
        let mut buf = [0u8; 64];
        while nix::unistd::read(self.wake_rd, &mut buf).is_ok_and(|n| n > 0) {}
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
            } else if p.state.is_stopping() {
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
        let abnormal = code != 0 || sig != 0;
        let report = |m: &Self| {
            crate::rlog!(
                Warning,
                "Worker::report_error(): worker(pid={pid}, id={id}) abnormal exit, status={code}, signal={sig}"
            );
            m.hooks.on_worker_error(id, pid.as_raw(), code, sig);
        };

        // An old worker (drained after a reload or a recycle, or one that
        // died while its replacement was starting): never forked again.
        if p.state.is_stopping() || matches!(p.state, ChildState::Replaced { .. }) {
            if let ChildState::Replaced { by: new, .. } = p.state {
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
                let back = if o.state.is_ready() {
                    ChildState::Serving
                } else {
                    ChildState::Starting
                };
                o.transition(back);
            }
            self.old_done(old);
            return Ok(());
        }
        if abnormal {
            report(self);
        }
        // A worker that dies at once (say, a fatal error in workerStart)
        // would otherwise be forked in a tight loop. One that was ready (it
        // ran workerStart, then was killed) is forked again at once, as
        // Swoole's manager does.
        // A user process sends no ready notice: one that left cleanly (say
        // its SIGTERM handler ran `Event::exit()`) counts as ready.
        let user_done = id >= self.cfg.total_workers() && code == 0 && sig == 0;
        let ready = p.state.is_ready() || user_done;
        let at = if !ready && p.started.elapsed() < QUICK_DEATH {
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
            if let ChildState::Draining { since: t } = p.state {
                if now >= t + grace {
                    crate::rlog!(
                        Warning,
                        "ReloadTask::kill_all(): force kill worker process(pid={pid}, id={})",
                        p.id
                    );
                    kill(*pid, Signal::SIGKILL);
                    p.transition(ChildState::Killed);
                }
            }
            if !p.state.is_ready() && p.replaces.is_some() && now >= p.started + READY_TIMEOUT {
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
        if crate::engine::rt::timer::pending() > 0 {
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
    for (from, to) in [
        (null.as_raw_fd(), 0),
        (out.as_raw_fd(), 1),
        (out.as_raw_fd(), 2),
    ] {
        let _ = nix::unistd::dup2(from, to);
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
    // Signals a previous server in this process left unhandled.
    let _ = signal::take_flags();
    if let Err(e) = stats::init() {
        crate::rlog!(Warning, "stats: cannot map shared memory: {e}");
    }
    if let Err(e) = session::init() {
        crate::rlog!(Warning, "sessions: cannot map shared memory: {e}");
    }
    ipc::configure(cfg.ipc_buffer_size, cfg.ipc_send_timeout);
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
    let metrics = crate::engine::metrics::spawn(&cfg);
    let result = if cfg.mode == Mode::Process {
        run_process_mode(&cfg, ports, hooks)
    } else {
        supervise(&cfg, &ports, hooks, true)
    };
    crate::engine::metrics::stop(metrics);
    ipc::teardown();
    if let Some(p) = &cfg.pid_file {
        let _ = std::fs::remove_file(p);
    }
    result
}

/// SWOOLE_PROCESS: forks the manager (which runs [`supervise`]), then runs
/// the reactor in this process. See [`crate::engine::proc::reactor`].
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
    // Our handlers come later in both processes (run_master, supervise):
    // hold SIGTERM/SIGINT from before the fork, so a shutdown() that a
    // quick worker makes before then waits for them instead of killing the
    // master with the default action. The manager inherits the mask and
    // lifts it once its own handlers are in (supervise).
    reactor::hold_stop_signals(true);
    // SAFETY: no runtime and no thread exist in this process yet (the
    // reactor threads start below, in the parent only).
    let manager = match unsafe { fork() } {
        Ok(ForkResult::Child) => {
            drop(channel);
            drop(tcp);
            crate::engine::rt::timer::forget_inherited();
            crate::engine::rt::event_loop::forget_runtime();
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
            reactor::hold_stop_signals(false);
            reactor::clear_channel();
            return Err(Error::process("fork() of the manager", e.into()));
        }
    };
    drop(for_workers);
    MANAGER_PID.store(manager.as_raw(), Ordering::Relaxed);
    // Still held (see above): a shutdown() made in onStart waits for
    // run_master's handlers too.
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
    notice::set_pipe(ctl_wr);
    let cleanup = || {
        signal::uninstall();
        notice::set_pipe(-1);
        for fd in [wake_rd, wake_wr, ctl_rd, ctl_wr] {
            close(fd);
        }
    };
    if let Err(e) = signal::install(wake_wr) {
        cleanup();
        return Err(Error::process("sigaction()", e));
    }
    // A PROCESS-mode manager was forked with SIGTERM/SIGINT held (see
    // run_process_mode): one sent meanwhile reaches the handler now.
    reactor::hold_stop_signals(false);

    if master {
        hooks.on_start();
    }

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
    // As Swoole's manager: the workers are forked first, then
    // onManagerStart runs (it may wait for them, or message them).
    let mut result = Ok(());
    for id in 0..m.cfg.total_workers() + user_process_count() {
        if let Err(e) = m.spawn(id, None) {
            result = Err(e);
            break;
        }
    }
    if result.is_ok() {
        hooks.on_manager_start();
        result = master_loop(&mut m);
    }
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
    loop {
        let got = signal::take_flags();
        if got.reopen {
            let _ = log::reopen();
            // Every process holds its own handle on the log file.
            for pid in m.workers.keys() {
                // SAFETY: kill() with a pid we forked; no memory involved.
                unsafe { libc::kill(pid.as_raw(), libc::SIGRTMIN()) };
            }
        }
        if got.term {
            m.on_term();
        }
        if got.reload {
            m.start_reload(false);
        }
        if got.reload_tasks {
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
        let user_sig = crate::engine::proc::user::listen_fd().unwrap_or(-1);
        let woke = poll_round(m.wake_rd, m.ctl_rd, user_sig, m.poll_timeout());
        if woke {
            crate::engine::proc::user::dispatch_now();
        }
        m.drain_wake();
        // Timers of onStart (BASE mode) and onManagerStart: fired here,
        // between rounds (`poll_timeout` is short while any is pending).
        if crate::engine::rt::timer::pending() > 0 {
            crate::engine::rt::event_loop::run_for(Duration::from_millis(1));
        }
    }
}

/// One sleep of the supervisor: until the wake pipe, the notice pipe or the
/// `Process::signal()` pipe (`user_sig`, -1 for none) is readable, or
/// `timeout_ms` passed. True when `user_sig` is readable.
fn poll_round(wake_rd: RawFd, ctl_rd: RawFd, user_sig: RawFd, timeout_ms: i32) -> bool {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use std::os::fd::BorrowedFd;
    // SAFETY: the three descriptors are open for the whole call: the two
    // pipes belong to the running supervisor, `user_sig` to user_process's
    // table, and nothing closes them while this thread sleeps here.
    let (wake, ctl) = unsafe {
        (
            BorrowedFd::borrow_raw(wake_rd),
            BorrowedFd::borrow_raw(ctl_rd),
        )
    };
    let mut fds = vec![
        PollFd::new(wake, PollFlags::POLLIN),
        PollFd::new(ctl, PollFlags::POLLIN),
    ];
    if user_sig >= 0 {
        // SAFETY: as above.
        fds.push(PollFd::new(
            unsafe { BorrowedFd::borrow_raw(user_sig) },
            PollFlags::POLLIN,
        ));
    }
    let timeout = PollTimeout::try_from(timeout_ms.max(0)).unwrap_or(PollTimeout::MAX);
    let _ = poll(&mut fds, timeout);
    user_sig >= 0
        && fds
            .get(2)
            .and_then(|f| f.revents())
            .is_some_and(|r| !r.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc(state: ChildState) -> Proc {
        Proc {
            id: 0,
            slot: None,
            started: Instant::now(),
            state,
            replaces: None,
        }
    }

    #[test]
    fn child_states_follow_the_table() {
        let by = Pid::from_raw(42);
        let now = Instant::now();
        let mut p = proc(ChildState::Starting);
        assert!(p.transition(ChildState::Serving));
        assert!(p.transition(ChildState::Replaced { by, ready: true }));
        // The replacement failed: back to serving.
        assert!(p.transition(ChildState::Serving));
        assert!(p.transition(ChildState::Draining { since: now }));
        assert!(p.transition(ChildState::Killed));
        assert_eq!(p.state, ChildState::Killed);

        // A reload while still starting, then ready while replaced.
        let mut p = proc(ChildState::Starting);
        assert!(p.transition(ChildState::Replaced { by, ready: false }));
        assert!(!p.state.is_ready());
        assert!(p.transition(ChildState::Replaced { by, ready: true }));
        assert!(p.state.is_ready());
        assert!(p.transition(ChildState::Draining { since: now }));
        assert!(p.state.is_stopping());
    }

    #[test]
    fn refused_moves_leave_the_state() {
        let now = Instant::now();
        let mut p = proc(ChildState::Draining { since: now });
        // A drained worker never serves again, nor is it replaced.
        assert!(!p.transition(ChildState::Serving));
        assert!(!p.transition(ChildState::Replaced {
            by: Pid::from_raw(7),
            ready: true
        }));
        assert!(!p.transition(ChildState::Draining { since: now }));
        assert_eq!(p.state, ChildState::Draining { since: now });
        // Killed is final; Serving cannot be killed without a SIGTERM first.
        let mut k = proc(ChildState::Killed);
        assert!(!k.transition(ChildState::Starting));
        let mut s = proc(ChildState::Serving);
        assert!(!s.transition(ChildState::Killed));
        assert!(!s.transition(ChildState::Starting));
        // A replacement's pid does not change while it starts.
        let mut r = proc(ChildState::Replaced {
            by: Pid::from_raw(1),
            ready: false,
        });
        assert!(!r.transition(ChildState::Replaced {
            by: Pid::from_raw(2),
            ready: true
        }));
    }
}
