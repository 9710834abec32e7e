//! Plumbing for user processes (`Swoole\Process`, `Process\Pool`,
//! `Server::addProcess`): fork with a fresh thread for the child, waiting,
//! signals delivered through a self-pipe, interval timers, System V message
//! queues, CPU affinity and scheduling priority. No PHP here.
//!
//! Why a fresh thread: `Process::start()` may be called inside a running
//! loop (`Co\run()`, a worker, a timer callback). The forked child then sits
//! inside the parent's `block_on` frames: tokio refuses to start a runtime
//! there, and the loop's thread-locals (its `LocalSet`, timers, coroutine
//! tables) hold the parent's tasks. A thread started in the child has none of
//! it: every thread-local starts empty and no runtime is entered. The forking
//! thread waits for it and the child thread leaves with `_exit()`.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Signals are numbered below this (Linux: 1..=64).
pub const SIGNO_MAX: usize = 65;

/// What `wait()` returns for one reaped child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitStatus {
    pub pid: i32,
    pub code: i32,
    pub signal: i32,
}

/// `waitpid(-1)`; `None` when no child exited (non-blocking) or there is
/// no child at all.
pub fn wait_any(blocking: bool) -> Option<ExitStatus> {
    loop {
        let mut status: libc::c_int = 0;
        let flags = if blocking { 0 } else { libc::WNOHANG };
        // SAFETY: waitpid writes the status into a live local.
        let pid = unsafe { libc::waitpid(-1, &mut status, flags) };
        if pid < 0 {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) && blocking {
                continue;
            }
            return None;
        }
        if pid == 0 {
            return None;
        }
        let (code, signal) = if libc::WIFEXITED(status) {
            (libc::WEXITSTATUS(status), 0)
        } else if libc::WIFSIGNALED(status) {
            (0, libc::WTERMSIG(status))
        } else {
            continue;
        };
        return Some(ExitStatus { pid, code, signal });
    }
}

/// `kill(pid, sig)`; the errno on failure.
pub fn kill(pid: i32, sig: i32) -> Result<(), i32> {
    // SAFETY: kill() takes integers only.
    if unsafe { libc::kill(pid, sig) } == 0 {
        Ok(())
    } else {
        Err(errno())
    }
}

pub fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Result of [`fork`].
pub enum Forked {
    Parent(i32),
    Child,
}

/// `fork()`. The caller must be the only thread of its process that runs
/// (the master, a worker, a script): what the child runs goes through
/// [`run_child`].
pub fn fork() -> std::io::Result<Forked> {
    // SAFETY: fork() has no memory arguments; the child only continues on
    // the calling thread, which is why children run through `run_child`.
    let pid = unsafe { libc::fork() };
    match pid {
        -1 => Err(std::io::Error::last_os_error()),
        0 => {
            reset_signals_after_fork();
            Ok(Forked::Child)
        }
        pid => Ok(Forked::Parent(pid)),
    }
}

/// Moves a value that is not `Send` to the child thread.
struct AssertSend<T>(T);
// SAFETY: used only by `run_child`, after a fork: the child process has one
// other thread (the forking one), which blocks in `join()` and never touches
// the value or the interpreter again. So the value is only ever used by one
// thread at a time, which is all the interpreter (NTS: plain globals) needs.
unsafe impl<T> Send for AssertSend<T> {}

/// In a forked child: runs `body` on a new thread (fresh thread-locals, no
/// runtime entered), then `after(code)` on that thread, then `_exit(code)`.
/// Never returns.
pub fn run_child(body: Box<dyn FnOnce() -> i32>, after: Box<dyn FnOnce(i32)>) -> ! {
    let job = AssertSend((body, after));
    // Signals must reach the PHP thread (a signal interrupts a blocking call
    // only on the thread that takes it): the forking thread blocks them all
    // for good; the new thread starts with the mask as it was.
    // SAFETY: sigset_t values are plain data filled by sigfillset /
    // pthread_sigmask through pointers to live locals.
    let old = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut old);
        old
    };
    let old = AssertSend(old);
    let spawned = std::thread::Builder::new()
        .name("php".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let old = old;
            // SAFETY: restores this thread's mask from a live local.
            unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old.0, std::ptr::null_mut()) };
            let job = job;
            let AssertSend((body, after)) = job;
            let code = body();
            after(code);
            // SAFETY: leaves the child process from the thread that ran the
            // PHP code; its thread-locals (holding PHP values) are not
            // destroyed, and the parent's state is not flushed twice.
            unsafe { libc::_exit(code) }
        });
    match spawned {
        Ok(h) => {
            let _ = h.join();
            // SAFETY: the child thread ended without _exit (a panic): leave.
            unsafe { libc::_exit(255) }
        }
        Err(e) => {
            crate::rlog!(Error, "cannot start the child process's thread: {e}");
            // SAFETY: leaving the forked child at once.
            unsafe { libc::_exit(1) }
        }
    }
}

// ---- signals -------------------------------------------------------------

static SIG_PENDING: [AtomicBool; SIGNO_MAX] = [const { AtomicBool::new(false) }; SIGNO_MAX];
static SIG_LISTENED: [AtomicBool; SIGNO_MAX] = [const { AtomicBool::new(false) }; SIGNO_MAX];
/// The self-pipe our handler writes a byte to: (read, write); -1 until used.
static SIG_RD: AtomicI32 = AtomicI32::new(-1);
static SIG_WR: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(sig: libc::c_int) {
    // Async-signal-safe only: atomics and write(2).
    // SAFETY: errno is thread-local; saved and restored around write().
    let saved = unsafe { *libc::__errno_location() };
    if (sig as usize) < SIGNO_MAX {
        SIG_PENDING[sig as usize].store(true, Ordering::SeqCst);
    }
    let fd = SIG_WR.load(Ordering::SeqCst);
    if fd >= 0 {
        let b = sig as u8;
        // SAFETY: one byte from a local; a full pipe (EAGAIN) is fine.
        unsafe { libc::write(fd, (&raw const b).cast(), 1) };
    }
    // SAFETY: see above.
    unsafe { *libc::__errno_location() = saved };
}

/// Installs `handler` (ours, `SIG_DFL` or `SIG_IGN`) for `sig`.
fn sigaction(sig: i32, handler: libc::sighandler_t, restart: bool) -> std::io::Result<()> {
    crate::engine::sys::signal::set_action(sig, handler, restart)
}

fn signal_pipe() -> std::io::Result<RawFd> {
    let rd = SIG_RD.load(Ordering::SeqCst);
    if rd >= 0 {
        return Ok(rd);
    }
    let (rd, wr) = crate::engine::sys::signal::pipe()?;
    SIG_WR.store(wr, Ordering::SeqCst);
    SIG_RD.store(rd, Ordering::SeqCst);
    Ok(rd)
}

/// Whether `sig` can be handled at all.
pub fn valid_signal(sig: i64) -> bool {
    sig > 0
        && (sig as usize) < SIGNO_MAX
        && sig != libc::SIGKILL as i64
        && sig != libc::SIGSTOP as i64
}

/// Starts catching `sig`: it becomes pending and a byte lands on the pipe
/// whose read end is returned.
pub fn listen(sig: i32) -> std::io::Result<RawFd> {
    let rd = signal_pipe()?;
    sigaction(sig, on_signal as *const () as libc::sighandler_t, true)?;
    SIG_LISTENED[sig as usize].store(true, Ordering::SeqCst);
    Ok(rd)
}

static DISPATCHER: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// The function that hands pending signals to their callbacks (the PHP
/// layer's), for loops that are not the event loop (the supervisors').
pub fn set_dispatcher(f: fn()) {
    let _ = DISPATCHER.set(f);
}

/// In a supervisor's `poll()` loop: `fd` (from [`listen_fd`]) was readable.
pub fn dispatch_now() {
    if let Some(f) = DISPATCHER.get() {
        f();
    }
}

/// The read end of the signal pipe, once a signal is listened to.
pub fn listen_fd() -> Option<RawFd> {
    let fd = SIG_RD.load(Ordering::SeqCst);
    (fd >= 0).then_some(fd)
}

/// Back to the default action for `sig`.
pub fn unlisten(sig: i32) {
    SIG_LISTENED[sig as usize].store(false, Ordering::SeqCst);
    SIG_PENDING[sig as usize].store(false, Ordering::SeqCst);
    let _ = sigaction(sig, libc::SIG_DFL, true);
}

/// `SIG_IGN` for `sig`.
pub fn ignore(sig: i32) -> std::io::Result<()> {
    SIG_LISTENED[sig as usize].store(false, Ordering::SeqCst);
    sigaction(sig, libc::SIG_IGN, true)
}

/// The signals that arrived since the last call (the pipe is emptied).
pub fn take_pending() -> Vec<i32> {
    let rd = SIG_RD.load(Ordering::SeqCst);
    if rd >= 0 {
        let mut buf = [0u8; 64];
        // SAFETY: reads into a live local buffer; the pipe is non-blocking.
        while unsafe { libc::read(rd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    }
    (1..SIGNO_MAX)
        .filter(|&s| SIG_PENDING[s].swap(false, Ordering::SeqCst))
        .map(|s| s as i32)
        .collect()
}

/// How many signals are caught through [`listen`] (`signal_listener_num`).
pub fn listened_count() -> usize {
    SIG_LISTENED
        .iter()
        .filter(|s| s.load(Ordering::SeqCst))
        .count()
}

/// Whether `sig` is caught through [`listen`].
pub fn is_listened(sig: i32) -> bool {
    usize::try_from(sig)
        .ok()
        .and_then(|i| SIG_LISTENED.get(i))
        .is_some_and(|s| s.load(Ordering::SeqCst))
}

/// Whether any signal is caught through [`listen`].
pub fn any_listened() -> bool {
    SIG_LISTENED.iter().any(|s| s.load(Ordering::SeqCst))
}

/// In a new child: the parent's signal callbacks are not the child's
/// (Swoole clears them too), and the pipe is the parent's.
fn reset_signals_after_fork() {
    for s in 1..SIGNO_MAX {
        if SIG_LISTENED[s].swap(false, Ordering::SeqCst) {
            let _ = sigaction(s as i32, libc::SIG_DFL, true);
        }
        SIG_PENDING[s].store(false, Ordering::SeqCst);
    }
    for fd in [
        SIG_RD.swap(-1, Ordering::SeqCst),
        SIG_WR.swap(-1, Ordering::SeqCst),
    ] {
        crate::engine::sys::signal::close(fd);
    }
}

/// `setitimer(type, usec)`; `usec <= 0` cancels.
pub fn alarm(usec: i64, which: i32) -> std::io::Result<()> {
    let usec = usec.max(0);
    let tv = libc::timeval {
        tv_sec: (usec / 1_000_000) as libc::time_t,
        tv_usec: (usec % 1_000_000) as libc::suseconds_t,
    };
    let it = libc::itimerval {
        it_interval: tv,
        it_value: tv,
    };
    // SAFETY: setitimer reads a live local.
    let rc = unsafe { libc::setitimer(which as _, &it, std::ptr::null_mut()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

// ---- affinity and priority -----------------------------------------------

/// Online CPUs (`sysconf(_SC_NPROCESSORS_ONLN)`, Swoole's `SW_CPU_NUM`).
pub fn cpu_count() -> usize {
    crate::engine::config::cpu_count()
}

/// `sched_setaffinity(0, cpus)`.
pub fn set_affinity(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes into it.
    let rc = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// `sched_getaffinity(0)`: the CPUs this process may run on.
pub fn get_affinity() -> std::io::Result<Vec<usize>> {
    // SAFETY: sched_getaffinity fills a zeroed cpu_set_t; CPU_ISSET reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect())
    }
}

pub fn set_priority(which: i32, who: i32, prio: i32) -> std::io::Result<()> {
    // SAFETY: integers only.
    if unsafe { libc::setpriority(which as libc::__priority_which_t, who as libc::id_t, prio) } == 0
    {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

pub fn get_priority(which: i32, who: i32) -> std::io::Result<i32> {
    // getpriority may legitimately return -1: errno tells.
    // SAFETY: errno is thread-local; getpriority takes integers only.
    let p = unsafe {
        *libc::__errno_location() = 0;
        libc::getpriority(which as libc::__priority_which_t, who as libc::id_t)
    };
    if p == -1 && errno() != 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(p)
    }
}

// ---- System V message queues ---------------------------------------------

/// Largest message `push()` takes (Swoole's limit).
pub const MSGQUEUE_MAX: usize = 65536;

/// One System V message queue (`msgget(key, IPC_CREAT | 0666)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsgQueue {
    pub id: i32,
    pub blocking: bool,
}

/// `ftok(path, 1)`.
pub fn ftok(path: &str) -> i64 {
    let Ok(c) = std::ffi::CString::new(path) else {
        return -1;
    };
    // SAFETY: ftok reads a NUL-terminated path.
    unsafe { libc::ftok(c.as_ptr(), 1) as i64 }
}

impl MsgQueue {
    pub fn open(key: i64, capacity: i64) -> std::io::Result<MsgQueue> {
        // SAFETY: integers only.
        let id = unsafe { libc::msgget(key as libc::key_t, libc::IPC_CREAT | 0o666) };
        if id < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let q = MsgQueue { id, blocking: true };
        if capacity > 0 {
            // SAFETY: msgctl fills / reads a zeroed msqid_ds.
            unsafe {
                let mut ds: libc::msqid_ds = std::mem::zeroed();
                if libc::msgctl(id, libc::IPC_STAT, &mut ds) == 0 {
                    ds.msg_qbytes = capacity as libc::msglen_t;
                    libc::msgctl(id, libc::IPC_SET, &mut ds);
                }
            }
        }
        Ok(q)
    }

    /// `msgsnd` with message type `mtype`.
    pub fn push(&self, mtype: i64, data: &[u8]) -> std::io::Result<()> {
        let hdr = std::mem::size_of::<libc::c_long>();
        let mut buf = vec![0u8; hdr + data.len()];
        buf[..hdr].copy_from_slice(&(mtype as libc::c_long).to_ne_bytes());
        buf[hdr..].copy_from_slice(data);
        let flags = if self.blocking { 0 } else { libc::IPC_NOWAIT };
        loop {
            // SAFETY: msgsnd reads `data.len()` bytes of text after the type.
            let rc = unsafe { libc::msgsnd(self.id, buf.as_ptr().cast(), data.len(), flags) };
            if rc == 0 {
                return Ok(());
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(e);
            }
        }
    }

    /// `msgrcv` of type `mtype` (0: any) up to `size` bytes. An `EINTR`
    /// is returned to the caller (a stopping pool worker needs it).
    pub fn pop(&self, mtype: i64, size: usize) -> std::io::Result<Vec<u8>> {
        let hdr = std::mem::size_of::<libc::c_long>();
        let mut buf = vec![0u8; hdr + size];
        let flags = if self.blocking { 0 } else { libc::IPC_NOWAIT };
        // SAFETY: msgrcv writes at most `size` bytes of text after the type.
        let n = unsafe {
            libc::msgrcv(
                self.id,
                buf.as_mut_ptr().cast(),
                size,
                mtype as libc::c_long,
                flags | libc::MSG_NOERROR,
            )
        };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        buf.drain(..hdr);
        buf.truncate(n as usize);
        Ok(buf)
    }

    /// (messages, bytes) in the queue.
    pub fn stat(&self) -> std::io::Result<(u64, u64)> {
        // SAFETY: msgctl fills a zeroed msqid_ds.
        unsafe {
            let mut ds: libc::msqid_ds = std::mem::zeroed();
            if libc::msgctl(self.id, libc::IPC_STAT, &mut ds) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok((ds.msg_qnum as u64, ds.__msg_cbytes as u64))
        }
    }

    /// `IPC_RMID`.
    pub fn destroy(&self) -> std::io::Result<()> {
        // SAFETY: IPC_RMID takes no buffer.
        if unsafe { libc::msgctl(self.id, libc::IPC_RMID, std::ptr::null_mut()) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

// ---- pipes ----------------------------------------------------------------

/// A connected `AF_UNIX` socket pair (stream or datagram): (master, worker).
pub fn socket_pair(stream: bool) -> std::io::Result<(RawFd, RawFd)> {
    use nix::sys::socket::{socketpair, AddressFamily, SockFlag, SockType};
    use std::os::fd::IntoRawFd;
    let ty = if stream {
        SockType::Stream
    } else {
        SockType::Datagram
    };
    // Raw fds: `Swoole\Process` keeps them by number across fork().
    let (a, b) = socketpair(AddressFamily::Unix, ty, None, SockFlag::empty())?;
    Ok((a.into_raw_fd(), b.into_raw_fd()))
}

/// `read()` up to `size` bytes, retried on `EINTR`.
pub fn read_fd(fd: RawFd, size: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; size.max(1)];
    loop {
        // SAFETY: reads into a live buffer of the given length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            buf.truncate(n as usize);
            return Ok(buf);
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

/// One whole datagram (its size peeked first), or `WouldBlock`.
pub fn recv_datagram(fd: RawFd) -> std::io::Result<Vec<u8>> {
    let mut one = [0u8; 1];
    // SAFETY: MSG_PEEK | MSG_TRUNC returns the datagram's real length
    // without consuming it; the buffer is a live local.
    let n = unsafe {
        libc::recv(
            fd,
            one.as_mut_ptr().cast(),
            1,
            libc::MSG_PEEK | libc::MSG_TRUNC | libc::MSG_DONTWAIT,
        )
    };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut buf = vec![0u8; (n as usize).max(1)];
    // SAFETY: receives into a live buffer of the given length.
    let m = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_DONTWAIT) };
    if m < 0 {
        return Err(std::io::Error::last_os_error());
    }
    buf.truncate(m as usize);
    Ok(buf)
}

/// `write()` everything (a datagram socket takes it in one call).
pub fn write_fd(fd: RawFd, data: &[u8]) -> std::io::Result<usize> {
    let mut done = 0;
    while done < data.len() {
        // SAFETY: writes from a live buffer.
        let n = unsafe { libc::write(fd, data[done..].as_ptr().cast(), data.len() - done) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            if done > 0 {
                return Ok(done);
            }
            return Err(e);
        }
        done += n as usize;
    }
    Ok(done)
}

pub fn set_nonblocking(fd: RawFd, nonblocking: bool) -> bool {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    let Ok(fl) = fcntl(fd, FcntlArg::F_GETFL) else {
        return false;
    };
    let mut fl = OFlag::from_bits_truncate(fl);
    fl.set(OFlag::O_NONBLOCK, nonblocking);
    fcntl(fd, FcntlArg::F_SETFL(fl)).is_ok()
}

/// `SO_RCVTIMEO` and `SO_SNDTIMEO` (0: none).
pub fn set_timeout(fd: RawFd, secs: f64) -> bool {
    let secs = if secs.is_finite() { secs.max(0.0) } else { 0.0 };
    let tv = libc::timeval {
        tv_sec: secs.trunc() as libc::time_t,
        tv_usec: (secs.fract() * 1e6) as libc::suseconds_t,
    };
    let len = std::mem::size_of::<libc::timeval>() as libc::socklen_t;
    // SAFETY: setsockopt reads a live local timeval.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&raw const tv).cast(),
            len,
        ) == 0
            && libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_SNDTIMEO,
                (&raw const tv).cast(),
                len,
            ) == 0
    }
}

pub fn close_fd(fd: RawFd) {
    if fd >= 0 {
        let _ = nix::unistd::close(fd);
    }
}

/// Waits until `fd` is readable or `timeout_ms` passes (-1: forever);
/// false on timeout or `EINTR`.
pub fn poll_readable(fds: &[RawFd], timeout_ms: i32) -> Vec<bool> {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use std::os::fd::BorrowedFd;
    // A negative fd is skipped, as poll(2) skips it.
    let open: Vec<(usize, RawFd)> = fds
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, fd)| *fd >= 0)
        .collect();
    let mut p: Vec<PollFd> = open
        .iter()
        // SAFETY: the caller owns these descriptors and keeps them open for
        // the call (this thread sleeps in poll() with them).
        .map(|&(_, fd)| PollFd::new(unsafe { BorrowedFd::borrow_raw(fd) }, PollFlags::POLLIN))
        .collect();
    let timeout = if timeout_ms < 0 {
        PollTimeout::NONE
    } else {
        PollTimeout::try_from(timeout_ms).unwrap_or(PollTimeout::MAX)
    };
    let mut out = vec![false; fds.len()];
    if poll(&mut p, timeout).is_ok_and(|n| n > 0) {
        for (k, &(i, _)) in open.iter().enumerate() {
            out[i] = p[k].revents().is_some_and(|r| !r.is_empty());
        }
    }
    out
}

/// Sets `argv[0]`-style title through `prctl(PR_SET_NAME)` (the kernel's
/// 15-byte comm); the full cmdline is PHP's `cli_set_process_title`.
pub fn set_comm(name: &str) {
    let mut b: Vec<u8> = name.bytes().take(15).collect();
    b.push(0);
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes.
    unsafe { libc::prctl(libc::PR_SET_NAME, b.as_ptr()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msg_queue_roundtrip() {
        let key = 0x5157_0000 + (std::process::id() as i64 & 0xffff);
        let mut q = MsgQueue::open(key, -1).expect("msgget");
        q.push(3, b"hello").expect("push");
        assert_eq!(q.stat().expect("stat"), (1, 5));
        assert_eq!(q.pop(0, 100).expect("pop"), b"hello");
        q.blocking = false;
        assert!(q.pop(0, 100).is_err());
        q.destroy().expect("rmid");
    }

    #[test]
    fn pipe_and_affinity() {
        let (a, b) = socket_pair(false).expect("pair");
        assert_eq!(write_fd(a, b"x1").expect("w"), 2);
        assert_eq!(read_fd(b, 10).expect("r"), b"x1");
        close_fd(a);
        close_fd(b);
        let cpus = get_affinity().expect("affinity");
        assert!(!cpus.is_empty());
        assert!(valid_signal(15));
        assert!(!valid_signal(9));
        assert!(!valid_signal(0));
    }
}
