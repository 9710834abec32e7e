//! `Swoole\Event`: `wait()`, `defer()`, `exit()`, `cycle()`, over the
//! engine's event loop.

use std::cell::{Cell, RefCell};

use ext_php_rs::exception::PhpResult;
use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use super::boundary;
use super::coroutine;
use super::errors;
use super::exception::type_error;
use crate::engine::rt::event_loop;

/// Per-thread state of this file, one thread-local for all (static TLS is
/// a budget: tools/tls-check.sh).
struct EventState {
    cycle: RefCell<Option<Zval>>,
    /// `Event::defer()` callbacks, run in the order they were added.
    deferred: RefCell<std::collections::VecDeque<Zval>>,
    /// `Event::add()`ed descriptors.
    watches: RefCell<std::collections::HashMap<i32, Watch>>,
}

thread_local! {
    static EVENTSTATE: Box<EventState> = Box::new(EventState {
        cycle: RefCell::new(None),
        deferred: RefCell::new(std::collections::VecDeque::new()),
        watches: RefCell::new(std::collections::HashMap::new()),
    });
}

fn with_cycle<R>(f: impl FnOnce(&RefCell<Option<Zval>>) -> R) -> R {
    EVENTSTATE.with(|s| f(&s.cycle))
}

fn with_deferred<R>(f: impl FnOnce(&RefCell<std::collections::VecDeque<Zval>>) -> R) -> R {
    EVENTSTATE.with(|s| f(&s.deferred))
}

fn with_watches<R>(f: impl FnOnce(&RefCell<std::collections::HashMap<i32, Watch>>) -> R) -> R {
    EVENTSTATE.with(|s| f(&s.watches))
}

thread_local! {
    static EXITED: Cell<bool> = const { Cell::new(false) };
}

#[php_class]
#[php(name = "Swoole\\Event")]
pub struct Event;

#[php_impl]
impl Event {
    /// Runs the event loop until no timer, coroutine or task is left.
    pub fn wait() {
        coroutine::run_loop();
    }

    /// The loop run at the end of a script (registered as a shutdown
    /// function on first use); skipped after `Event::exit()`. As in Swoole,
    /// waiting here for work nobody waited for is deprecated, and after a
    /// fatal error or an uncaught exception nothing is waited for.
    pub fn rshutdown() {
        if EXITED.with(Cell::get) {
            return;
        }
        // After a fatal error (an uncaught exception too) Swoole does not wait.
        if boundary::last_fatal().is_some() {
            return;
        }
        if coroutine::loop_pending() {
            errors::raise_as(
                &ext_php_rs::flags::ErrorType::Deprecated,
                "swoole_event_rshutdown()",
                "Event::wait() in shutdown function is deprecated",
            );
        }
        coroutine::run_loop();
    }

    /// Calls `$callback` on the loop's next round.
    pub fn defer(callback: &Zval) -> PhpResult<bool> {
        if !callback.is_callable() {
            return Err(type_error(
                "Swoole\\Event::defer(): Argument #1 ($callback) must be a valid callback",
            ));
        }
        let first = with_deferred(|d| {
            let mut d = d.borrow_mut();
            d.push_back(callback.shallow_clone());
            d.len() == 1
        });
        if first {
            event_loop::spawn(async {
                tokio::task::yield_now().await;
                while let Some(cb) = with_deferred(|d| d.borrow_mut().pop_front()) {
                    drop(boundary::call(&cb, &mut []));
                }
            });
        }
        coroutine::schedule_loop();
        Ok(true)
    }

    /// Watches `$fd` (a stream, a socket or a descriptor number) and calls
    /// the callbacks, with `$fd`, when it is readable / writable.
    #[php(defaults(events = 512))]
    pub fn add(
        fd: &Zval,
        read_callback: Option<&Zval>,
        write_callback: Option<&Zval>,
        events: i64,
    ) -> PhpResult<Zval> {
        event_add(fd, read_callback, write_callback, events)
    }

    #[php(defaults(events = 0))]
    pub fn set(
        fd: &Zval,
        read_callback: Option<&Zval>,
        write_callback: Option<&Zval>,
        events: i64,
    ) -> PhpResult<bool> {
        event_set(fd, read_callback, write_callback, events)
    }

    pub fn del(fd: &Zval) -> bool {
        event_del(fd)
    }

    #[php(defaults(events = 1536))]
    pub fn isset(fd: &Zval, events: i64) -> bool {
        event_isset(fd, events)
    }

    pub fn write(fd: &Zval, data: &Zval) -> bool {
        let bytes = data
            .zend_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default();
        event_write(fd, bytes)
    }

    pub fn dispatch() -> bool {
        event_dispatch()
    }

    /// Stops the running loop (and the one a script runs at its end).
    pub fn exit() {
        EXITED.with(|e| e.set(true));
        event_loop::request_exit();
    }

    /// Calls `$callback` at the end of each round of the loop that ran
    /// something (null removes it: false when none was set), outside any
    /// coroutine, as in Swoole.
    #[php(optional = before, defaults(before = false))]
    pub fn cycle(callback: Option<&Zval>, before: bool) -> PhpResult<bool> {
        let _ = before;
        let cb = match callback {
            Some(z) if z.is_null() => None,
            Some(z) if z.is_callable() => Some(z.shallow_clone()),
            Some(_) => return Err(type_error(
                "Swoole\\Event::cycle(): Argument #1 ($callback) must be a valid callback or null",
            )),
            None => None,
        };
        let had = with_cycle(|c| c.borrow().is_some());
        if cb.is_none() && !had {
            return Ok(false);
        }
        let start = cb.is_some() && !had;
        with_cycle(|c| *c.borrow_mut() = cb);
        if start {
            event_loop::spawn_untracked(async {
                loop {
                    // No PHP value may live across the await: this task can
                    // outlive the request (it is dropped at process exit).
                    {
                        let cb = with_cycle(|c| c.borrow().as_ref().map(Zval::shallow_clone));
                        let Some(cb) = cb else { break };
                        if super::timer::coroutine_enabled() {
                            // As Swoole: each round's call runs in a coroutine.
                            let _ = super::coroutine::spawn(super::coroutine::Job {
                                callable: cb,
                                args: Vec::new(),
                                done: None,
                            });
                        } else {
                            drop(boundary::call(&cb, &mut []));
                        }
                    }
                    // Its own call counts too: the next round starts after it.
                    event_loop::next_round(event_loop::activity()).await;
                }
            });
        }
        Ok(true)
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Event>()
}

pub fn shutdown() {
    shutdown_watches();
    with_cycle(|c| c.borrow_mut().take());
    with_deferred(|d| d.borrow_mut().clear());
}

/// `PHP_STREAM_AS_FD_FOR_SELECT | PHP_STREAM_CAST_INTERNAL`, what
/// `stream_select()` asks for.
const CAST_FD_FOR_SELECT: std::ffi::c_int = 3 | 0x2000_0000;

/// The descriptor behind a PHP value: an int, a stream resource, an
/// ext-sockets `Socket`, or a `Swoole\Coroutine\Socket`.
pub fn fd_of_zval(z: &Zval) -> Option<i32> {
    if let Some(n) = z.long() {
        return i32::try_from(n).ok();
    }
    if z.is_resource() {
        let stream = super::hook_stream::stream_of(z)?.cast::<std::ffi::c_void>();
        let mut fd: std::ffi::c_int = -1;
        // SAFETY: `stream` is a php_stream; an fd cast writes one int
        // through `ret`.
        let ok = unsafe {
            super::hook_stream::stream_cast(stream, CAST_FD_FOR_SELECT, (&raw mut fd).cast(), 0)
        };
        return (ok == 0 && fd >= 0).then_some(fd);
    }
    let obj = z.object()?;
    if let Some(s) = <&super::socket_coro::Socket as ext_php_rs::convert::FromZval>::from_zval(z) {
        return Some(s.core.sock.fd());
    }
    let name = obj.get_class_name().ok()?;
    if name == "Socket" {
        // ext-sockets' php_socket: { int bsd_socket; int type; int error;
        // int blocking; zval zstream; zend_object std; } (PHP 8.x), so the
        // descriptor sits 16 + sizeof(zval) bytes before the object.
        let std_off = 4 * std::mem::size_of::<i32>() + std::mem::size_of::<ext_php_rs::ffi::zval>();
        let p = std::ptr::from_ref(obj).cast::<u8>();
        // SAFETY: an object of class `Socket` is always embedded in a
        // php_socket laid out as above; bsd_socket is its first field.
        let fd = unsafe { p.sub(std_off).cast::<i32>().read() };
        return (fd >= 0).then_some(fd);
    }
    None
}

struct Watch {
    zfd: Zval,
    read: Option<Zval>,
    write: Option<Zval>,
    events: i64,
    task: Option<tokio::task::JoinHandle<()>>,
}

const EV_READ: i64 = 512;
const EV_WRITE: i64 = 1024;

/// True when `fd` is ready for `events` right now (`poll` with no wait).
fn ready_now(fd: i32, write: bool) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: if write { libc::POLLOUT } else { libc::POLLIN },
        revents: 0,
    };
    // SAFETY: one valid pollfd, no wait.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n > 0 && p.revents != 0
}

/// Calls the callback of `fd` for one direction, outside any coroutine.
fn fire(fd: i32, write: bool) {
    let cb = with_watches(|w| {
        w.borrow().get(&fd).and_then(|e| {
            let cb = if write {
                e.write.as_ref()
            } else {
                e.read.as_ref()
            }?;
            Some((cb.shallow_clone(), e.zfd.shallow_clone()))
        })
    });
    if let Some((cb, zfd)) = cb {
        drop(boundary::call(&cb, &mut [zfd]));
    }
}

fn start_watch(fd: i32) -> bool {
    // A descriptor of our own (dup) so deregistering never touches the
    // caller's, and epoll sees it as a separate registration.
    // SAFETY: fcntl on a caller-given descriptor; a bad one fails.
    let d = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if d < 0 {
        return false;
    }
    // SAFETY: `d` is a fresh descriptor owned from here on.
    let owned = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(d) };
    let task = event_loop::spawn(async move {
        // SAFETY: `owned` is not closed while the AsyncFd owns it.
        let Ok(afd) = (unsafe { tokio::io::unix::AsyncFd::register(owned) }) else {
            return;
        };
        loop {
            let events = with_watches(|w| w.borrow().get(&fd).map(|e| e.events));
            let Some(events) = events else { return };
            let want_r = events & EV_READ != 0;
            let want_w = events & EV_WRITE != 0;
            if !want_r && !want_w {
                return;
            }
            tokio::select! {
                g = afd.readable(), if want_r => {
                    let Ok(mut g) = g else { return };
                    fire(fd, false);
                    if !ready_now(d, false) {
                        g.clear_ready();
                    }
                }
                g = afd.writable(), if want_w => {
                    let Ok(mut g) = g else { return };
                    fire(fd, true);
                    if !ready_now(d, true) {
                        g.clear_ready();
                    }
                }
            }
            tokio::task::yield_now().await;
        }
    });
    with_watches(|w| {
        if let Some(e) = w.borrow_mut().get_mut(&fd) {
            e.task = Some(task);
        }
    });
    true
}

fn stop_watch(fd: i32) -> bool {
    let e = with_watches(|w| w.borrow_mut().remove(&fd));
    match e {
        Some(mut e) => {
            if let Some(t) = e.task.take() {
                t.abort();
            }
            drop(e);
            true
        }
        None => false,
    }
}

fn opt_callable(z: Option<&Zval>, what: &str) -> PhpResult<Option<Zval>> {
    match z {
        None => Ok(None),
        Some(z) if z.is_null() => Ok(None),
        Some(z) if z.is_callable() => Ok(Some(z.shallow_clone())),
        Some(_) => Err(type_error(format!(
            "Swoole\\Event::add(): Argument #{what} must be a valid callback or null"
        ))),
    }
}

fn bad_fd() -> PhpResult<Zval> {
    ext_php_rs::error::php_error(&ext_php_rs::flags::ErrorType::Warning, "unknown fd type");
    let mut z = Zval::new();
    z.set_bool(false);
    Ok(z)
}

impl Event {
    pub fn add_impl(
        fd: &Zval,
        read: Option<&Zval>,
        write: Option<&Zval>,
        events: i64,
    ) -> PhpResult<Zval> {
        let Some(n) = fd_of_zval(fd) else {
            return bad_fd();
        };
        let read = opt_callable(read, "2 ($read_callback)")?;
        let write = opt_callable(write, "3 ($write_callback)")?;
        if read.is_none() && write.is_none() {
            ext_php_rs::error::php_error(
                &ext_php_rs::flags::ErrorType::Warning,
                "both read and write callbacks are empty",
            );
            let mut z = Zval::new();
            z.set_bool(false);
            return Ok(z);
        }
        if with_watches(|w| w.borrow().contains_key(&n)) {
            ext_php_rs::error::php_error(
                &ext_php_rs::flags::ErrorType::Warning,
                &format!("socket#{n} is already exists"),
            );
            let mut z = Zval::new();
            z.set_bool(false);
            return Ok(z);
        }
        let mut ev = events & (EV_READ | EV_WRITE);
        if ev == 0 {
            ev = EV_READ;
        }
        with_watches(|w| {
            w.borrow_mut().insert(
                n,
                Watch {
                    zfd: fd.shallow_clone(),
                    read,
                    write,
                    events: ev,
                    task: None,
                },
            )
        });
        if !start_watch(n) {
            with_watches(|w| w.borrow_mut().remove(&n));
            let mut z = Zval::new();
            z.set_bool(false);
            return Ok(z);
        }
        coroutine::schedule_loop();
        let mut z = Zval::new();
        z.set_long(i64::from(n));
        Ok(z)
    }
}

/// `Event::set()`: changes the callbacks and/or events of a watched fd.
fn set_impl(fd: &Zval, read: Option<&Zval>, write: Option<&Zval>, events: i64) -> PhpResult<bool> {
    let Some(n) = fd_of_zval(fd) else {
        return Ok(false);
    };
    if !with_watches(|w| w.borrow().contains_key(&n)) {
        ext_php_rs::error::php_error(
            &ext_php_rs::flags::ErrorType::Warning,
            &format!("socket#{n} has not been added to the reactor"),
        );
        return Ok(false);
    }
    let read = match read {
        Some(z) if !z.is_null() => Some(opt_callable(Some(z), "2 ($read_callback)")?),
        _ => None,
    };
    let write = match write {
        Some(z) if !z.is_null() => Some(opt_callable(Some(z), "3 ($write_callback)")?),
        _ => None,
    };
    with_watches(|w| {
        if let Some(e) = w.borrow_mut().get_mut(&n) {
            if let Some(r) = read {
                e.read = r;
            }
            if let Some(wc) = write {
                e.write = wc;
            }
            let ev = events & (EV_READ | EV_WRITE);
            if ev != 0 {
                e.events = ev;
            }
        }
    });
    // The watching task reads the events each round: restart it so a
    // changed set takes effect now.
    let old = with_watches(|w| w.borrow_mut().get_mut(&n).and_then(|e| e.task.take()));
    if let Some(t) = old {
        t.abort();
    }
    Ok(start_watch(n))
}

pub fn event_add(
    fd: &Zval,
    read: Option<&Zval>,
    write: Option<&Zval>,
    events: i64,
) -> PhpResult<Zval> {
    Event::add_impl(fd, read, write, events)
}

pub fn event_set(
    fd: &Zval,
    read: Option<&Zval>,
    write: Option<&Zval>,
    events: i64,
) -> PhpResult<bool> {
    set_impl(fd, read, write, events)
}

pub fn event_del(fd: &Zval) -> bool {
    match fd_of_zval(fd) {
        Some(n) => stop_watch(n),
        None => false,
    }
}

pub fn event_isset(fd: &Zval, events: i64) -> bool {
    let Some(n) = fd_of_zval(fd) else {
        return false;
    };
    with_watches(|w| w.borrow().get(&n).is_some_and(|e| e.events & events != 0))
}

/// `Event::write()`: writes now what the descriptor takes; the rest is
/// written from the loop when it becomes writable.
pub fn event_write(fd: &Zval, data: Vec<u8>) -> bool {
    let Some(n) = fd_of_zval(fd) else {
        return false;
    };
    let mut at = 0usize;
    while at < data.len() {
        // SAFETY: writes from a live buffer to a caller-given descriptor.
        let w = unsafe { libc::write(n, data[at..].as_ptr().cast(), data.len() - at) };
        if w < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::WouldBlock {
                break;
            }
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
        at += w as usize;
    }
    if at < data.len() {
        let rest = data[at..].to_vec();
        event_loop::spawn(async move {
            let mut at = 0usize;
            while at < rest.len() {
                if !ready_now(n, true) {
                    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                    continue;
                }
                // SAFETY: as above.
                let w = unsafe { libc::write(n, rest[at..].as_ptr().cast(), rest.len() - at) };
                if w < 0 {
                    let e = std::io::Error::last_os_error();
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::Interrupted
                    {
                        continue;
                    }
                    return;
                }
                at += w as usize;
            }
        });
        coroutine::schedule_loop();
    }
    true
}

/// `Event::dispatch()`: runs the loop until something ran (one round; see
/// `timer::dispatch_round` for the timers a round holds back).
pub fn event_dispatch() -> bool {
    super::timer::dispatch_round(|| {
        let seen = event_loop::activity();
        let _watch = event_loop::watch_activity();
        event_loop::run_until_idle(move || {
            event_loop::activity() != seen || event_loop::live_tasks() == 0
        })
    })
}

/// Drops every watch (request end).
pub fn shutdown_watches() {
    let all: Vec<i32> = with_watches(|w| w.borrow().keys().copied().collect());
    for fd in all {
        stop_watch(fd);
    }
}
