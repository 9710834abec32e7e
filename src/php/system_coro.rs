//! The waiting parts of `Swoole\Coroutine\System` (and the same names on
//! `Swoole\Coroutine`): DNS (`getaddrinfo` on tokio's blocking pool, so the
//! worker keeps running), `exec`, `wait`/`waitPid`, `waitSignal` and
//! `waitEvent`. Each suspends only the calling coroutine.

use std::os::unix::process::ExitStatusExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ext_php_rs::exception::PhpResult;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::errors::set_last_error;
use super::socket_coro::{bytes_zval, false_zval};
use crate::coro;
use crate::engine::net::socket as net_socket;

/// `SWOOLE_ERROR_DNSLOOKUP_RESOLVE_FAILED`.
const ERR_DNS_FAILED: i64 = 711;
/// `SWOOLE_ERROR_DNSLOOKUP_RESOLVE_TIMEOUT`.
const ERR_DNS_TIMEOUT: i64 = 712;

/// Sets the last error of a failed wait: `SWOOLE_ERROR_CO_CANCELED` when
/// `Coroutine::cancel()` ended it, else `code` (0: leave it).
fn fail(code: i64) {
    if coro::is_canceled() {
        set_last_error(super::coroutine::SWOOLE_ERROR_CO_CANCELED);
    } else if code != 0 {
        set_last_error(code);
    }
}

fn timeout(t: f64) -> Option<Duration> {
    (t > 0.0 && t.is_finite()).then(|| Duration::from_secs_f64(t))
}

fn lookup(host: &str, family: i64, t: f64) -> PhpResult<Option<Vec<String>>> {
    super::errors::need_coroutine()?;
    let fam = if family == i64::from(libc::AF_INET6) {
        libc::AF_INET6
    } else {
        libc::AF_INET
    };
    let r = coro::io::run(net_socket::lookup_async(host.to_string(), fam, timeout(t)))
        .unwrap_or_else(|_| Err(std::io::Error::from_raw_os_error(libc::ECANCELED)));
    match r {
        Ok(ips) if !ips.is_empty() => Ok(Some(ips.iter().map(ToString::to_string).collect())),
        Err(e) if e.raw_os_error() == Some(libc::ETIMEDOUT) => {
            fail(ERR_DNS_TIMEOUT);
            Ok(None)
        }
        _ => {
            fail(ERR_DNS_FAILED);
            Ok(None)
        }
    }
}

fn str_zval(s: &str) -> Zval {
    bytes_zval(s.as_bytes())
}

/// The first address of `host` (`gethostbyname`, `dnsLookup`), false with
/// Swoole's warning for an empty name; `dnsLookup` also sets the last error.
fn first_address(host: &str, family: i64, t: f64, set_error: bool) -> PhpResult<Zval> {
    if host.is_empty() {
        if set_error {
            set_last_error(super::errors::SWOOLE_ERROR_INVALID_PARAMS);
        }
        ext_php_rs::error::php_error(
            &ext_php_rs::flags::ErrorType::Warning,
            "domain name is empty",
        );
        return Ok(false_zval());
    }
    Ok(match lookup(host, family, t)? {
        Some(v) => str_zval(&v[0]),
        None => false_zval(),
    })
}

pub fn gethostbyname(host: &str, family: i64, t: f64) -> PhpResult<Zval> {
    first_address(host, family, t, false)
}

pub fn dns_lookup(host: &str, t: f64, family: i64) -> PhpResult<Zval> {
    first_address(host, family, t, true)
}

pub fn getaddrinfo(host: &str, family: i64, t: f64) -> PhpResult<Zval> {
    if host.is_empty() {
        ext_php_rs::error::php_error(
            &ext_php_rs::flags::ErrorType::Warning,
            "domain name is empty",
        );
        return Ok(false_zval());
    }
    Ok(match lookup(host, family, t)? {
        Some(v) => {
            let mut ht = ZendHashTable::new();
            for ip in v {
                let _ = ht.push(ip.as_str());
            }
            let mut z = Zval::new();
            z.set_hashtable(ht);
            z
        }
        None => false_zval(),
    })
}

fn status_array(pid: i64, code: i64, signal: i64) -> Zval {
    let mut ht = ZendHashTable::new();
    let _ = ht.insert("pid", pid);
    let _ = ht.insert("code", code);
    let _ = ht.insert("signal", signal);
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

/// `System::exec()`: runs `/bin/sh -c $command` on a blocking thread.
pub fn exec(command: &str, get_error_stream: bool) -> PhpResult<Zval> {
    super::errors::need_coroutine()?;
    let cmd = if get_error_stream {
        format!("exec 2>&1; {command}")
    } else {
        command.to_string()
    };
    let job = async move {
        tokio::task::spawn_blocking(move || {
            std::process::Command::new("/bin/sh")
                .arg("-c")
                .arg(cmd)
                .stdin(std::process::Stdio::null())
                .stderr(if get_error_stream {
                    std::process::Stdio::piped()
                } else {
                    std::process::Stdio::inherit()
                })
                .output()
        })
        .await
    };
    match coro::io::run(job) {
        Ok(Ok(Ok(out))) => {
            let code = out.status.code().map_or(0, i64::from);
            let signal = out.status.signal().map_or(0, i64::from);
            let mut ht = ZendHashTable::new();
            let _ = ht.insert("code", code);
            let _ = ht.insert("signal", signal);
            let _ = ht.insert("output", bytes_zval(&out.stdout));
            let mut z = Zval::new();
            z.set_hashtable(ht);
            Ok(z)
        }
        _ => Ok(false_zval()),
    }
}

/// `wait()`/`waitPid()`: polls `waitpid(WNOHANG)` from the loop.
pub fn wait_pid(pid: i64, t: f64) -> PhpResult<Zval> {
    super::errors::need_coroutine()?;
    let dl = timeout(t).map(|d| Instant::now() + d);
    let pid = pid as libc::pid_t;
    let job = async move {
        let mut delay = Duration::from_millis(1);
        loop {
            let mut status: libc::c_int = 0;
            // SAFETY: `status` is a valid out-pointer.
            let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if r > 0 {
                let code = if libc::WIFEXITED(status) {
                    libc::WEXITSTATUS(status)
                } else {
                    0
                };
                let sig = if libc::WIFSIGNALED(status) {
                    libc::WTERMSIG(status)
                } else {
                    0
                };
                return Ok((r, code, sig));
            }
            if r < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if dl.is_some_and(|d| Instant::now() >= d) {
                return Err(std::io::Error::from_raw_os_error(libc::ETIMEDOUT));
            }
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(Duration::from_millis(20));
        }
    };
    match coro::io::run(job) {
        Ok(Ok((p, code, sig))) => Ok(status_array(i64::from(p), i64::from(code), i64::from(sig))),
        Ok(Err(e)) => {
            fail(i64::from(e.raw_os_error().unwrap_or(libc::ECHILD)));
            Ok(false_zval())
        }
        Err(_) => {
            fail(0);
            Ok(false_zval())
        }
    }
}

/// `waitSignal()`: the first of `signals` delivered, or false on timeout.
pub fn wait_signal(signals: &Zval, t: f64) -> PhpResult<Zval> {
    super::errors::need_coroutine()?;
    let mut list: Vec<i32> = Vec::new();
    if let Some(n) = signals.long() {
        list.push(n as i32);
    } else if let Some(ht) = signals.array() {
        for (_, v) in ht.iter() {
            if let Some(n) = v.long() {
                list.push(n as i32);
            }
        }
    }
    if list.is_empty() {
        set_last_error(super::errors::SWOOLE_ERROR_INVALID_PARAMS);
        return Ok(false_zval());
    }
    let d = timeout(t).map(|d| Instant::now() + d);
    // Our handler records the signal in a bit mask; the previous handlers
    // come back when the wait ends.
    let mut old: Vec<(i32, libc::sigaction)> = Vec::new();
    for &n in &list {
        if !(1..64).contains(&n) {
            continue;
        }
        SIGNALS_SEEN.fetch_and(!(1u64 << n), Ordering::SeqCst);
        // SAFETY: zeroed sigactions are valid; the handler only touches an
        // atomic.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_wait_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            let mut prev: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(n, &sa, &mut prev) == 0 {
                old.push((n, prev));
            }
        }
    }
    let watch = list.clone();
    let job = async move {
        loop {
            let seen = SIGNALS_SEEN.load(Ordering::SeqCst);
            if let Some(n) = watch
                .iter()
                .find(|n| (1..64).contains(*n) && seen & (1u64 << **n) != 0)
            {
                return Some(*n);
            }
            if d.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    };
    let r = coro::io::run(job);
    for (n, prev) in old {
        // SAFETY: restores the action saved above.
        unsafe { libc::sigaction(n, &prev, std::ptr::null_mut()) };
        SIGNALS_SEEN.fetch_and(!(1u64 << n), Ordering::SeqCst);
    }
    match r {
        Ok(Some(n)) => {
            let mut z = Zval::new();
            z.set_long(i64::from(n));
            Ok(z)
        }
        _ => {
            fail(i64::from(libc::ETIMEDOUT));
            Ok(false_zval())
        }
    }
}

/// Signals delivered while a `waitSignal()` waits, one bit per number.
static SIGNALS_SEEN: AtomicU64 = AtomicU64::new(0);

// Not wrapped in `php_fn!` (see php/ffi.rs): a signal handler only stores
// an atomic, and `catch_unwind` is not async-signal-safe.
extern "C" fn on_wait_signal(sig: libc::c_int) {
    if (1..64).contains(&sig) {
        SIGNALS_SEEN.fetch_or(1u64 << sig, Ordering::SeqCst);
    }
}

/// `waitEvent()`: waits until the stream/socket is readable or writable;
/// returns the events that are ready.
pub fn wait_event(socket: &Zval, events: i64, t: f64) -> PhpResult<Zval> {
    super::errors::need_coroutine()?;
    let Some(fd) = super::event::fd_of_zval(socket) else {
        set_last_error(super::errors::SWOOLE_ERROR_INVALID_PARAMS);
        return Ok(false_zval());
    };
    // SAFETY: fcntl on a caller-given descriptor; a bad one fails.
    let d = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if d < 0 {
        set_last_error(i64::from(libc::EBADF));
        return Ok(false_zval());
    }
    // SAFETY: `d` is a fresh descriptor owned from here on.
    let owned = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(d) };
    let want_r = events & 512 != 0;
    let want_w = events & 1024 != 0;
    let dd = timeout(t);
    let job = async move {
        // SAFETY: `owned` is not closed while the AsyncFd owns it.
        let afd = unsafe { tokio::io::unix::AsyncFd::register(owned) }.ok()?;
        let w = async {
            tokio::select! {
                r = afd.readable(), if want_r => r.ok().map(|_| 512i64),
                r = afd.writable(), if want_w => r.ok().map(|_| 1024i64),
            }
        };
        match dd {
            Some(d) => tokio::time::timeout(d, w).await.ok().flatten(),
            None => w.await,
        }
    };
    if !want_r && !want_w {
        set_last_error(super::errors::SWOOLE_ERROR_INVALID_PARAMS);
        return Ok(false_zval());
    }
    match coro::io::run(job) {
        Ok(Some(ev)) => {
            let mut z = Zval::new();
            z.set_long(ev);
            Ok(z)
        }
        _ => {
            set_last_error(i64::from(libc::ETIMEDOUT));
            Ok(false_zval())
        }
    }
}
