//! The master process of BASE mode: it forks the workers (before any runtime
//! or thread exists), replaces any that die, and stops them on SIGTERM/SIGINT.
//!
//! The master runs no event loop: it blocks in `waitpid()`. Its signal
//! handlers are installed without `SA_RESTART`, so a signal interrupts that
//! wait with `EINTR` and the loop looks at the flags the handlers set.

use std::collections::HashMap;
use std::net::TcpListener;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{self, SaFlags, SigAction, SigHandler, SigSet, Signal};
use nix::sys::wait::{waitpid, WaitStatus};
use nix::unistd::{fork, ForkResult, Pid};

use super::config::ServerConfig;
use super::error::{Error, Result};
use super::hooks::Hooks;
use super::log::{self, Role};
use super::worker;

static MASTER_PID: AtomicI32 = AtomicI32::new(0);
static MANAGER_PID: AtomicI32 = AtomicI32::new(0);

static GOT_TERM: AtomicBool = AtomicBool::new(false);
static GOT_ALARM: AtomicBool = AtomicBool::new(false);
static GOT_REOPEN: AtomicBool = AtomicBool::new(false);

pub fn master_pid() -> i32 {
    MASTER_PID.load(Ordering::Relaxed)
}

pub fn manager_pid() -> i32 {
    MANAGER_PID.load(Ordering::Relaxed)
}

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work here: set a flag.
    match sig {
        libc::SIGTERM | libc::SIGINT => GOT_TERM.store(true, Ordering::SeqCst),
        libc::SIGALRM => GOT_ALARM.store(true, Ordering::SeqCst),
        _ if sig == libc::SIGRTMIN() => GOT_REOPEN.store(true, Ordering::SeqCst),
        _ => {}
    }
}

fn master_signals() -> Vec<Signal> {
    vec![Signal::SIGTERM, Signal::SIGINT, Signal::SIGALRM]
}

fn install(handler: SigHandler) -> Result<()> {
    // No SA_RESTART: the blocked waitpid() must return EINTR.
    let act = SigAction::new(handler, SaFlags::empty(), SigSet::empty());
    for sig in master_signals() {
        // SAFETY: the handler only stores to atomics (async-signal-safe).
        unsafe { signal::sigaction(sig, &act) }
            .map_err(|e| Error::process(format!("sigaction({sig})"), e.into()))?;
    }
    let rt = libc::SIGRTMIN();
    // SAFETY: as above; `sigaction` with valid pointers to a zeroed-then-filled struct.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = match handler {
            SigHandler::Handler(f) => f as usize,
            _ => libc::SIG_DFL,
        };
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(rt, &sa, std::ptr::null_mut());
    }
    Ok(())
}

struct Master<'a> {
    listener: &'a TcpListener,
    hooks: Rc<dyn Hooks>,
    cfg_rc: Rc<ServerConfig>,
    /// pid -> (worker id, started at)
    workers: HashMap<Pid, (usize, Instant)>,
}

impl Master<'_> {
    fn spawn(&mut self, id: usize) -> Result<()> {
        // SAFETY: the master is single-threaded here (no runtime, no thread
        // was ever started in it), which is what makes fork() sound.
        match unsafe { fork() } {
            Ok(ForkResult::Child) => {
                // Workers handle their own signals through tokio.
                let _ = install(SigHandler::SigDfl);
                let listener = match self.listener.try_clone() {
                    Ok(l) => l,
                    Err(e) => {
                        crate::rlog!(Error, "worker#{id}: dup listener: {e}");
                        // SAFETY: _exit ends the child without running the parent's atexit state.
                        unsafe { libc::_exit(1) }
                    }
                };
                let code = worker::run(id, listener, self.cfg_rc.clone(), self.hooks.clone());
                self.hooks.before_process_exit();
                // SAFETY: leaving the forked child; nothing of the parent's
                // state should be flushed or destroyed twice.
                unsafe { libc::_exit(code) }
            }
            Ok(ForkResult::Parent { child }) => {
                self.workers.insert(child, (id, Instant::now()));
                Ok(())
            }
            Err(e) => Err(Error::process("fork()", e.into())),
        }
    }

    fn kill_all(&self, sig: Signal) {
        for pid in self.workers.keys() {
            let _ = signal::kill(*pid, sig);
        }
    }
}

/// Runs the server in the calling (master) process until it is stopped.
/// Returns in the master only; workers exit inside.
pub fn run(cfg: ServerConfig, listener: TcpListener, hooks: Rc<dyn Hooks>) -> Result<()> {
    let me = std::process::id() as i32;
    MASTER_PID.store(me, Ordering::Relaxed);
    MANAGER_PID.store(me, Ordering::Relaxed);
    log::set_role(Role::Master, 0);
    GOT_TERM.store(false, Ordering::SeqCst);
    GOT_ALARM.store(false, Ordering::SeqCst);
    install(SigHandler::Handler(on_signal))?;
    if let Some(pid_file) = &cfg.pid_file {
        std::fs::write(pid_file, format!("{me}\n"))
            .map_err(|e| Error::io(format!("write pid_file {}", pid_file.display()), e))?;
    }

    hooks.on_start();
    hooks.on_manager_start();

    let cfg_rc = Rc::new(cfg.clone());
    let mut m = Master {
        listener: &listener,
        hooks: hooks.clone(),
        cfg_rc,
        workers: HashMap::new(),
    };
    for id in 0..cfg.worker_num.max(1) {
        m.spawn(id)?;
    }

    let mut stopping = false;
    loop {
        if GOT_REOPEN.swap(false, Ordering::SeqCst) {
            let _ = log::reopen();
        }
        if GOT_TERM.swap(false, Ordering::SeqCst) {
            if stopping {
                crate::rlog!(Warning, "second stop signal: killing workers");
                m.kill_all(Signal::SIGKILL);
            } else {
                stopping = true;
                m.kill_all(Signal::SIGTERM);
                // One extra second so a worker's own max_wait_time runs out first.
                let secs = cfg.max_wait_time.as_secs().max(1) + 1;
                // SAFETY: alarm() only arms a timer.
                unsafe { libc::alarm(secs as libc::c_uint) };
            }
        }
        if GOT_ALARM.swap(false, Ordering::SeqCst) && stopping {
            crate::rlog!(
                Warning,
                "workers did not exit within max_wait_time: killing them"
            );
            m.kill_all(Signal::SIGKILL);
        }
        if stopping && m.workers.is_empty() {
            break;
        }
        match waitpid(None::<Pid>, None) {
            Ok(WaitStatus::Exited(pid, code)) => reap(&mut m, pid, code, 0, stopping)?,
            Ok(WaitStatus::Signaled(pid, sig, _)) => reap(&mut m, pid, 0, sig as i32, stopping)?,
            Ok(_) => {}
            Err(Errno::EINTR) => {}
            Err(Errno::ECHILD) => {
                if stopping {
                    break;
                }
                m.workers.clear();
            }
            Err(e) => return Err(Error::process("waitpid()", e.into())),
        }
    }
    // SAFETY: cancels the alarm armed above, if any.
    unsafe { libc::alarm(0) };

    hooks.on_manager_stop();
    hooks.on_shutdown();
    if let Some(pid_file) = &cfg.pid_file {
        let _ = std::fs::remove_file(pid_file);
    }
    Ok(())
}

fn reap(m: &mut Master<'_>, pid: Pid, code: i32, sig: i32, stopping: bool) -> Result<()> {
    let Some((id, started)) = m.workers.remove(&pid) else {
        return Ok(());
    };
    if stopping {
        return Ok(());
    }
    if code != 0 || sig != 0 {
        crate::rlog!(
            Warning,
            "Manager::wait(): worker(pid={pid}, id={id}) abnormal exit, status={code}, signal={sig}"
        );
        m.hooks.on_worker_error(id, pid.as_raw(), code, sig);
    }
    // A worker that dies at once (say, a fatal error in workerStart) would
    // otherwise be forked in a tight loop.
    if started.elapsed() < Duration::from_millis(500) {
        std::thread::sleep(Duration::from_millis(100));
    }
    if GOT_TERM.load(Ordering::SeqCst) {
        return Ok(());
    }
    m.spawn(id)
}
