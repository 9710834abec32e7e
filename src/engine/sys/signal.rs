//! Signals in the supervising processes (the BASE-mode master, the
//! PROCESS-mode manager and master): our own sigaction() handlers, which only
//! set atomics and write a byte to a self-pipe (the "wake" pipe), so a signal
//! or a child's death ends the supervisor's poll() at once.
//!
//! tokio's signal streams are not used there: the supervisor runs no event
//! loop, and after a script ran `Co\run()` tokio's process-wide signal pipe
//! belongs to that runtime. The fds stay raw here because the handler writes
//! to one by number.

use std::os::fd::{IntoRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static GOT_TERM: AtomicBool = AtomicBool::new(false);
static GOT_RELOAD: AtomicBool = AtomicBool::new(false);
static GOT_RELOAD_TASK: AtomicBool = AtomicBool::new(false);
static GOT_REOPEN: AtomicBool = AtomicBool::new(false);
/// Write end of the master's self-pipe; -1 outside the master.
static WAKE_WR: AtomicI32 = AtomicI32::new(-1);
/// Another process sent SIGPIPE, which no handler takes (Swoole's master
/// logs "Unable to find callback function for signal").
static GOT_FOREIGN_PIPE: AtomicBool = AtomicBool::new(false);

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
/// A signal for which `user(sig)` is true keeps the script's handler
/// (`Process::signal()` in `onStart`).
pub fn master_signal_pipe(user: &dyn Fn(libc::c_int) -> bool) -> std::io::Result<RawFd> {
    for flag in [&GOT_TERM, &GOT_RELOAD, &GOT_RELOAD_TASK, &GOT_REOPEN] {
        flag.store(false, Ordering::SeqCst);
    }
    let (rd, wr) = pipe()?;
    WAKE_WR.store(wr, Ordering::SeqCst);
    for sig in master_signals() {
        if !user(sig) {
            set_handler(sig, on_signal as *const () as libc::sighandler_t)?;
        }
    }
    if !user(libc::SIGPIPE) {
        watch_sigpipe()?;
    }
    Ok(rd)
}

/// SIGPIPE in a supervising process: one sent by another process is noted
/// (and logged by [`take_received`]/[`take_flags`], as Swoole's master logs a
/// signal it has no callback for); one raised by our own write to a closed
/// peer stays as quiet as `SIG_IGN` (the write fails with EPIPE).
fn watch_sigpipe() -> std::io::Result<()> {
    // SAFETY: a zeroed sigaction is valid; the handler only touches
    // atomics, getpid() and write(); SA_RESTART keeps an interrupted call
    // going.
    let rc = unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigpipe as *const () as libc::sighandler_t;
        sa.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGPIPE, &sa, std::ptr::null_mut())
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

extern "C" fn on_sigpipe(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler;
    // getpid() is async-signal-safe.
    let foreign = !info.is_null() && unsafe { (*info).si_pid() != libc::getpid() };
    if foreign {
        GOT_FOREIGN_PIPE.store(true, Ordering::SeqCst);
        on_signal(libc::SIGPIPE);
    }
}

/// Logs a SIGPIPE another process sent, once per signal taken.
fn log_foreign_pipe() {
    if GOT_FOREIGN_PIPE.swap(false, Ordering::SeqCst) {
        crate::rlog!(
            Warning,
            "swoole_signal_callback() (ERRNO 721): Unable to find callback function for signal Broken pipe: {}",
            libc::SIGPIPE
        );
    }
}

/// Takes the flags [`master_signal_pipe`]'s handlers set, and empties `rd`.
pub fn take_received(rd: RawFd) -> Received {
    log_foreign_pipe();
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
pub fn close_master_signal_pipe(rd: RawFd, user: &dyn Fn(libc::c_int) -> bool) {
    for sig in master_signals() {
        if !user(sig) {
            let _ = set_handler(sig, libc::SIG_DFL);
        }
    }
    if !user(libc::SIGPIPE) {
        let _ = set_handler(libc::SIGPIPE, libc::SIG_IGN);
    }
    let wr = WAKE_WR.swap(-1, Ordering::SeqCst);
    close(wr);
    close(rd);
}

pub extern "C" fn on_signal(sig: libc::c_int) {
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

pub fn master_signals() -> [libc::c_int; 6] {
    [
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGCHLD,
        libc::SIGRTMIN(),
    ]
}

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

/// A non-blocking, close-on-exec pipe: (read end, write end), as raw fds:
/// the signal handler writes to one, and the processes that inherit the
/// other across fork() keep it by number.
pub fn pipe() -> std::io::Result<(RawFd, RawFd)> {
    let (rd, wr) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC | nix::fcntl::OFlag::O_NONBLOCK)?;
    Ok((rd.into_raw_fd(), wr.into_raw_fd()))
}

/// Closes a descriptor [`pipe`] made; negative means none.
pub fn close(fd: RawFd) {
    if fd >= 0 {
        let _ = nix::unistd::close(fd);
    }
}

/// Sets the wake pipe's write end and installs [`on_signal`] for the
/// supervisor's signals.
pub fn install(wake_wr: RawFd) -> std::io::Result<()> {
    WAKE_WR.store(wake_wr, Ordering::SeqCst);
    for sig in master_signals() {
        set_handler(sig, on_signal as *const () as libc::sighandler_t)?;
    }
    watch_sigpipe()
}

/// Undoes [`install`] (the pipe itself is the caller's to close).
pub fn uninstall() {
    for sig in master_signals() {
        let _ = set_handler(sig, libc::SIG_DFL);
    }
    let _ = set_handler(libc::SIGPIPE, libc::SIG_IGN);
    WAKE_WR.store(-1, Ordering::SeqCst);
}

/// In a freshly forked worker: the supervisor's handlers and wake pipe are
/// not its own. Workers take SIGTERM/SIGINT through tokio; reload signals
/// are the supervisor's business; SIGRTMIN (log reopen) is ignored until the
/// worker's runtime listens for it.
pub fn forget_in_child() {
    WAKE_WR.store(-1, Ordering::SeqCst);
    for sig in master_signals() {
        let _ = set_handler(sig, libc::SIG_DFL);
    }
    let _ = set_handler(libc::SIGUSR1, libc::SIG_IGN);
    let _ = set_handler(libc::SIGUSR2, libc::SIG_IGN);
    let _ = set_handler(libc::SIGRTMIN(), libc::SIG_IGN);
    let _ = set_handler(libc::SIGPIPE, libc::SIG_IGN);
}

/// The flags the handlers set since the last call (without reading the
/// pipe: the supervisor drains it itself).
pub fn take_flags() -> Received {
    log_foreign_pipe();
    Received {
        term: GOT_TERM.swap(false, Ordering::SeqCst),
        reload: GOT_RELOAD.swap(false, Ordering::SeqCst),
        reload_tasks: GOT_RELOAD_TASK.swap(false, Ordering::SeqCst),
        reopen: GOT_REOPEN.swap(false, Ordering::SeqCst),
    }
}
