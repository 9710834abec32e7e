//! The worker -> supervisor notice pipe: fixed 8-byte records (kind, pid)
//! a worker writes once `workerStart` returned (`Ready`) and when it wants
//! to be replaced (`Retire`). One pipe per supervisor, inherited by every
//! worker it forks; a write of 8 bytes (< PIPE_BUF) is atomic, so notices
//! from many workers never interleave.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicI32, Ordering};

/// Write end of the worker -> master notice pipe; inherited by workers.
static CONTROL_WR: AtomicI32 = AtomicI32::new(-1);

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

impl Notice {
    fn from_u8(b: u8) -> Option<Notice> {
        match b {
            1 => Some(Notice::Ready),
            2 => Some(Notice::Retire),
            _ => None,
        }
    }
}

/// In the supervisor, before forking: where workers write (-1: nowhere).
pub fn set_pipe(wr: RawFd) {
    CONTROL_WR.store(wr, Ordering::SeqCst);
}

/// Reads every notice waiting on `rd` (non-blocking), in order.
pub fn read_all(rd: RawFd, mut each: impl FnMut(Notice, i32)) {
    let mut buf = [0u8; 8 * 64];
    loop {
        let n = match nix::unistd::read(rd, &mut buf) {
            Ok(n) if n > 0 => n,
            _ => break,
        };
        for rec in buf[..n].chunks_exact(8) {
            let pid = i32::from_ne_bytes([rec[4], rec[5], rec[6], rec[7]]);
            if let Some(kind) = Notice::from_u8(rec[0]) {
                each(kind, pid);
            }
        }
        if n < buf.len() {
            break;
        }
    }
}
