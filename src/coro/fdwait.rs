//! Waiting, from a coroutine, until a raw fd someone else owns (a PHP
//! stream's socket) is readable or writable, with a timeout: the runtime
//! hooks' one readiness primitive.
//!
//! Each fd is registered once with the event loop (a tokio `AsyncFd` over
//! the bare number, never closing it) and kept in a per-process table until
//! its owner calls `forget` just before closing it. Tokio's readiness is
//! edge-triggered and cached, so every wake-up is confirmed with a
//! zero-timeout `poll(2)`: the caller may have consumed the data behind
//! tokio's back. The table entry remembers the fd's inode, so a number
//! reused by a new socket (closed without `forget`) is noticed and the stale
//! registration is leaked rather than deregistered (deregistering would
//! remove the new socket's own registration, possibly the engine's).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

use super::{io, Error};

/// What to wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Read,
    Write,
}

/// A borrowed fd number: dropping it closes nothing.
struct Borrowed(RawFd);

impl AsRawFd for Borrowed {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

struct Entry {
    afd: Rc<AsyncFd<Borrowed>>,
    ino: (u64, u64, u32),
}

thread_local! {
    static TABLE: Box<RefCell<HashMap<RawFd, Entry>>> = Box::new(RefCell::new(HashMap::new()));
}

/// (device, inode, process) of `fd`, or `None` when it is not open. The
/// process id makes a registration inherited through fork() (made on the
/// parent's loop) stale in the child.
fn identity(fd: RawFd) -> Option<(u64, u64, u32)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `st` is a valid out-pointer for fstat; a bad fd only fails.
    let r = unsafe { libc::fstat(fd, st.as_mut_ptr()) };
    if r != 0 {
        return None;
    }
    // SAFETY: fstat succeeded and filled `st`.
    let st = unsafe { st.assume_init() };
    Some((st.st_dev, st.st_ino, std::process::id()))
}

/// True when `fd` is ready for `want` now (an error or hang-up counts as
/// ready: the operation will report it without blocking).
pub fn ready_now(fd: RawFd, want: Want) -> bool {
    let events = match want {
        Want::Read => libc::POLLIN,
        Want::Write => libc::POLLOUT,
    };
    let mut p = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd, zero timeout.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n != 0
}

/// The registration of `fd`, made on first use (inside a loop task, where
/// tokio's reactor is reachable).
fn registration(fd: RawFd) -> Option<Rc<AsyncFd<Borrowed>>> {
    let ino = identity(fd)?;
    let cached = TABLE.with(|t| {
        let mut t = t.borrow_mut();
        match t.get(&fd) {
            Some(e) if e.ino == ino => Some(Rc::clone(&e.afd)),
            Some(_) => {
                // The number now names another file: see the module comment.
                if let Some(stale) = t.remove(&fd) {
                    std::mem::forget(stale);
                }
                None
            }
            None => None,
        }
    });
    if cached.is_some() {
        return cached;
    }
    // SAFETY: `fd` is open (fstat above) and its owner calls `forget`
    // before closing it; a number reused without that is caught by the
    // inode check and the stale registration forgotten, never used again.
    let afd = unsafe {
        AsyncFd::register_with_interest(Borrowed(fd), Interest::READABLE | Interest::WRITABLE)
    }
    .ok()?;
    let afd = Rc::new(afd);
    TABLE.with(|t| {
        t.borrow_mut().insert(
            fd,
            Entry {
                afd: Rc::clone(&afd),
                ino,
            },
        )
    });
    Some(afd)
}

/// Drops `fd`'s registration; call it before the fd is closed.
pub fn forget(fd: RawFd) {
    let e = TABLE.with(|t| t.borrow_mut().remove(&fd));
    drop(e);
}

/// Waits until `fd` is ready for `want`, suspending only the current
/// coroutine. `Ok(true)` when ready, `Ok(false)` when `timeout` ran out,
/// `Err(NotInCoroutine)` outside a coroutine. An fd the loop cannot watch
/// (a regular file) reports ready at once.
pub fn wait(fd: RawFd, want: Want, timeout: Option<Duration>) -> Result<bool, Error> {
    if ready_now(fd, want) {
        return Ok(true);
    }
    wait_busy(fd, want, timeout)
}

/// `wait` for a caller that has just seen EAGAIN on `fd` (no zero-timeout
/// check first).
pub fn wait_busy(fd: RawFd, want: Want, timeout: Option<Duration>) -> Result<bool, Error> {
    if timeout.is_some_and(|t| t.is_zero()) {
        return Ok(false);
    }
    io::run(async move {
        let Some(afd) = registration(fd) else {
            return true;
        };
        let ready = async {
            loop {
                let guard = match want {
                    Want::Read => afd.readable().await,
                    Want::Write => afd.writable().await,
                };
                match guard {
                    Ok(mut g) => {
                        if ready_now(fd, want) {
                            return true;
                        }
                        g.clear_ready();
                    }
                    Err(_) => return true,
                }
            }
        };
        match timeout {
            Some(t) => tokio::time::timeout(t, ready).await.unwrap_or(false),
            None => ready.await,
        }
    })
}

/// Sets a flag to false when dropped: tells a loop task that the
/// coroutine it works for has stopped waiting (see `io`).
struct Alive(Rc<Cell<bool>>);

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// Runs `op` (a non-blocking recv/send/accept on `fd`) from the loop each
/// time `fd` is ready for `want`, until it answers something other than
/// `WouldBlock`, suspending only the current coroutine; tokio clears its
/// cached readiness on every `WouldBlock`, so no extra `poll(2)` is made.
/// `Ok(None)` when `timeout` ran out first. `op` is never called once this
/// function has returned (the coroutine destroyed meanwhile included), so
/// it may use the caller's buffers.
pub fn io<R, F>(
    fd: RawFd,
    want: Want,
    timeout: Option<Duration>,
    mut op: F,
) -> Result<Option<std::io::Result<R>>, Error>
where
    R: 'static,
    F: FnMut() -> std::io::Result<R> + 'static,
{
    let alive = Rc::new(Cell::new(true));
    let _guard = Alive(Rc::clone(&alive));
    io::run(async move {
        let interest = match want {
            Want::Read => Interest::READABLE,
            Want::Write => Interest::WRITABLE,
        };
        let Some(afd) = registration(fd) else {
            return Some(op());
        };
        let fut = afd.async_io(interest, |_| {
            if !alive.get() {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            op()
        });
        match timeout {
            Some(t) => tokio::time::timeout(t, fut).await.ok(),
            None => Some(fut.await),
        }
    })
}
