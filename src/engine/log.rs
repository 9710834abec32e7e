//! Server log: Swoole's line format, a level filter, and an optional `log_file`.
//!
//! A line looks like `[2026-11-29 18:48:51 *1234.0]\tWARNING\tmessage`: the
//! character before the pid says which process wrote it (`#` master, `$`
//! manager, `*` worker, `^` task worker) and the number after the dot is the
//! worker id. Every process holds its own copy of this state after fork.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::atomic::{AtomicI32, AtomicU8, Ordering};
use std::sync::Mutex;

/// Swoole's `SWOOLE_LOG_*` numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i32)]
pub enum Level {
    Debug = 0,
    Trace = 1,
    Info = 2,
    Notice = 3,
    Warning = 4,
    Error = 5,
    None = 6,
}

impl Level {
    fn name(self) -> &'static str {
        match self {
            Level::Debug => "DEBUG",
            Level::Trace => "TRACE",
            Level::Info => "INFO",
            Level::Notice => "NOTICE",
            Level::Warning => "WARNING",
            Level::Error => "ERROR",
            Level::None => "NONE",
        }
    }
}

/// Which kind of process is writing; printed before the pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Role {
    Master = b'#',
    Manager = b'$',
    Worker = b'*',
    TaskWorker = b'^',
}

static LEVEL: AtomicI32 = AtomicI32::new(Level::Info as i32);
static ROLE: AtomicU8 = AtomicU8::new(Role::Master as u8);
static WORKER_ID: AtomicI32 = AtomicI32::new(-1);
/// `None` writes to stderr. Guarded by a mutex only because statics need it;
/// each process is single-threaded where it logs.
static FILE: Mutex<Option<(String, File)>> = Mutex::new(None);

pub fn set_level(level: i32) {
    LEVEL.store(level.clamp(0, 6), Ordering::Relaxed);
}

pub fn set_role(role: Role, worker_id: i32) {
    ROLE.store(role as u8, Ordering::Relaxed);
    WORKER_ID.store(worker_id, Ordering::Relaxed);
}

/// Sends log lines to `path` (appending), or back to stderr with `None`.
pub fn set_file(path: Option<&str>) -> std::io::Result<()> {
    let mut guard = FILE.lock().unwrap_or_else(|p| p.into_inner());
    *guard = match path {
        Some(p) => Some((
            p.to_string(),
            OpenOptions::new().create(true).append(true).open(p)?,
        )),
        None => None,
    };
    Ok(())
}

/// Reopens the log file (for logrotate): same path, new file handle.
pub fn reopen() -> std::io::Result<()> {
    let path = {
        let guard = FILE.lock().unwrap_or_else(|p| p.into_inner());
        guard.as_ref().map(|(p, _)| p.clone())
    };
    set_file(path.as_deref())
}

pub fn enabled(level: Level) -> bool {
    level as i32 >= LEVEL.load(Ordering::Relaxed) && level != Level::None
}

/// Writes one log line if `level` passes the filter.
pub fn log(level: Level, msg: &str) {
    if !enabled(level) {
        return;
    }
    write_raw(&format_line(level, msg));
}

/// Writes text as it is (already formatted, e.g. a PHP uncaught-exception report).
pub fn write_raw(text: &str) {
    let mut guard = FILE.lock().unwrap_or_else(|p| p.into_inner());
    match guard.as_mut() {
        Some((_, f)) => {
            let _ = f.write_all(text.as_bytes());
        }
        None => {
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }
}

fn format_line(level: Level, msg: &str) -> String {
    let now = local_time_string();
    let role = ROLE.load(Ordering::Relaxed) as char;
    let wid = WORKER_ID.load(Ordering::Relaxed);
    let pid = std::process::id();
    let wid = if wid < 0 { 0 } else { wid };
    format!("[{now} {role}{pid}.{wid}]\t{}\t{msg}\n", level.name())
}

/// `YYYY-MM-DD HH:MM:SS` in local time, through libc (no extra crate).
fn local_time_string() -> String {
    // SAFETY: time() with a null pointer only returns the clock.
    let t = unsafe { libc::time(std::ptr::null_mut()) };
    // SAFETY: an all-zero `tm` is a valid value for localtime_r to overwrite.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals; localtime_r is thread-safe.
    unsafe { libc::localtime_r(&t, &mut tm) };
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}

#[macro_export]
macro_rules! rlog {
    ($lvl:ident, $($arg:tt)*) => {
        if $crate::engine::log::enabled($crate::engine::log::Level::$lvl) {
            $crate::engine::log::log($crate::engine::log::Level::$lvl, &format!($($arg)*));
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_has_swoole_shape() {
        set_role(Role::Worker, 3);
        let line = format_line(Level::Warning, "hello");
        assert!(line.starts_with('['), "{line}");
        assert!(
            line.contains(&format!("*{}.3]", std::process::id())),
            "{line}"
        );
        assert!(line.ends_with("\tWARNING\thello\n"), "{line}");
    }
}
