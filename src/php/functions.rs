//! Swoole's plain `swoole_*()` functions that have no class of their own:
//! version and machine facts, error texts and the error log, MIME types, and
//! the function spellings of `Coroutine`, `Event` and `Timer` methods.

use std::ffi::{c_char, c_int, CStr};

use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpResult;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendCallable, ZendHashTable, Zval};

use super::coroutine::Coroutine;
use super::errors;
use super::event::Event;
use super::timer::Timer;
use crate::engine::http::mime;
use crate::engine::log;

/// `SWOOLE_STRERROR_*`: which table `swoole_strerror()` reads.
const STRERROR_GAI: i64 = 1;
const STRERROR_DNS: i64 = 2;
const STRERROR_SWOOLE: i64 = 9;

extern "C" {
    // glibc: const char *hstrerror(int err);
    fn hstrerror(err: c_int) -> *const c_char;
}

fn c_text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: gai_strerror/hstrerror return pointers to static
    // NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn array(ht: ext_php_rs::boxed::ZBox<ZendHashTable>) -> Zval {
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

#[php_function]
pub fn swoole_version() -> &'static str {
    super::constants::SWOOLE_VERSION
}

/// The number of online CPUs.
#[php_function]
pub fn swoole_cpu_num() -> i64 {
    // SAFETY: sysconf only reads a system setting.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    n.max(1)
}

/// The calling thread's `errno`.
#[php_function]
pub fn swoole_errno() -> i64 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .map_or(0, i64::from)
}

/// The text of an error code: Swoole's own for `SWOOLE_ERROR_*` codes,
/// `strerror()` for errno values, `gai_strerror()` / `hstrerror()` on request.
#[php_function]
#[php(defaults(error_type = 0))]
pub fn swoole_strerror(errno: i64, error_type: i64) -> String {
    let code = c_int::try_from(errno).unwrap_or(c_int::MAX);
    match error_type {
        // SAFETY: gai_strerror accepts any int and returns a static string.
        STRERROR_GAI => c_text(unsafe { libc::gai_strerror(code) }),
        // SAFETY: hstrerror accepts any int and returns a static string.
        STRERROR_DNS => c_text(unsafe { hstrerror(code) }),
        _ if error_type == STRERROR_SWOOLE
            || (errno > errors::SW_ERROR_BEGIN && errno < errors::SW_ERROR_END) =>
        {
            errors::swoole_error_text(errno)
        }
        _ => errors::os_error_text(errno),
    }
}

fn level(level: i64) -> log::Level {
    match level {
        i64::MIN..=0 => log::Level::Debug,
        1 => log::Level::Trace,
        2 => log::Level::Info,
        3 => log::Level::Notice,
        4 => log::Level::Warning,
        5 => log::Level::Error,
        _ => log::Level::None,
    }
}

/// Writes `$msg` to the server log at `$level` (`SWOOLE_LOG_*`).
#[php_function]
pub fn swoole_error_log(level: i64, msg: &Zval) {
    let text = msg.zend_str().map(|s| s.as_bytes()).unwrap_or_default();
    log::log(self::level(level), &String::from_utf8_lossy(text));
}

/// `swoole_error_log()` for an error code: sets `swoole_last_error()` and
/// writes the line unless the code is ignored (`swoole_ignore_error()`).
#[php_function]
pub fn swoole_error_log_ex(level: i64, error: i64, msg: &Zval) {
    errors::set_last_error(error);
    if errors::is_ignored(error) {
        return;
    }
    let text = msg.zend_str().map(|s| s.as_bytes()).unwrap_or_default();
    // Swoole's line names the C function that logged it.
    log::log(
        self::level(level),
        &format!(
            "zif_swoole_error_log_ex() (ERRNO {error}): {}",
            String::from_utf8_lossy(text)
        ),
    );
}

/// Stops log lines for an error code (`swoole_error_log_ex()` honours it).
#[php_function]
pub fn swoole_ignore_error(error: i64) {
    errors::ignore_error(error);
}

/// PHP's own string hash (type 0, DJBX33A as `zend_hash_func`, high bit
/// set) or Jenkins' one-at-a-time hash (type 1); false for another type.
#[php_function]
#[php(defaults(r#type = 0))]
pub fn swoole_hashcode(data: &Zval, r#type: i64) -> Zval {
    let bytes = data.zend_str().map(|s| s.as_bytes()).unwrap_or_default();
    let mut z = Zval::new();
    match r#type {
        0 => z.set_long(crate::engine::hash::zend_hash(bytes) as i64),
        1 => z.set_long(i64::from(crate::engine::hash::one_at_a_time(bytes))),
        _ => z.set_bool(false),
    }
    z
}

#[php_function]
pub fn swoole_mime_type_add(suffix: &str, mime_type: &str) -> bool {
    mime::add(suffix, mime_type)
}

#[php_function]
pub fn swoole_mime_type_set(suffix: &str, mime_type: &str) {
    mime::set(suffix, mime_type);
}

#[php_function]
pub fn swoole_mime_type_delete(suffix: &str) -> bool {
    mime::delete(suffix)
}

#[php_function]
pub fn swoole_mime_type_get(filename: &str) -> &'static str {
    mime::get(filename)
}

#[php_function]
pub fn swoole_get_mime_type(filename: &str) -> &'static str {
    mime::get(filename)
}

#[php_function]
pub fn swoole_mime_type_exists(filename: &str) -> bool {
    mime::exists(filename)
}

#[php_function]
pub fn swoole_mime_type_list() -> Vec<&'static str> {
    mime::list()
}

/// Sets the process title through PHP's `cli_set_process_title()`.
#[php_function]
pub fn swoole_set_process_name(process_name: &str) -> bool {
    let Ok(f) = ZendCallable::try_from_name("cli_set_process_title") else {
        php_error(
            &ErrorType::Warning,
            "swoole_set_process_name only support in CLI mode",
        );
        return false;
    };
    let name = process_name.to_string();
    f.try_call(vec![&name])
        .ok()
        .and_then(|z| z.bool())
        .unwrap_or(false)
}

/// `['eth0' => '192.0.2.2', ...]`: the address of each interface that is up,
/// of `$family` (`AF_INET` or `AF_INET6`), loopback left out.
#[php_function]
#[php(defaults(family = 2))]
pub fn swoole_get_local_ip(family: i64) -> Zval {
    let mut ht = ZendHashTable::new();
    if let Ok(addrs) = nix::ifaddrs::getifaddrs() {
        for ifa in addrs {
            if !ifa.flags.contains(nix::net::if_::InterfaceFlags::IFF_UP) {
                continue;
            }
            let Some(addr) = ifa.address else { continue };
            let ip: std::net::IpAddr = if let Some(v4) = addr.as_sockaddr_in() {
                std::net::IpAddr::V4(v4.ip())
            } else if let Some(v6) = addr.as_sockaddr_in6() {
                std::net::IpAddr::V6(v6.ip())
            } else {
                continue;
            };
            let fam = if ip.is_ipv4() {
                i64::from(libc::AF_INET)
            } else {
                i64::from(libc::AF_INET6)
            };
            if fam != family || ip.is_loopback() {
                continue;
            }
            let _ = ht.insert(ifa.interface_name.as_str(), ip.to_string());
        }
    }
    array(ht)
}

/// `['eth0' => '02:FC:00:00:00:01', ...]`: the hardware address of each
/// interface that has an IPv4 address (the interfaces `SIOCGIFCONF` lists,
/// as in Swoole), loopback left out.
#[php_function]
pub fn swoole_get_local_mac() -> Zval {
    let mut ht = ZendHashTable::new();
    let Ok(addrs) = nix::ifaddrs::getifaddrs() else {
        return array(ht);
    };
    let addrs: Vec<_> = addrs.collect();
    let mac_of = |name: &str| {
        addrs.iter().find_map(|ifa| {
            let mac = ifa.address.as_ref()?.as_link_addr()?.addr()?;
            (ifa.interface_name == name).then_some(mac)
        })
    };
    for ifa in &addrs {
        let has_v4 = ifa
            .address
            .as_ref()
            .is_some_and(|a| a.as_sockaddr_in().is_some());
        if !has_v4
            || ifa
                .flags
                .contains(nix::net::if_::InterfaceFlags::IFF_LOOPBACK)
            || ht.get(ifa.interface_name.as_str()).is_some()
        {
            continue;
        }
        let Some(mac) = mac_of(&ifa.interface_name) else {
            continue;
        };
        let text = mac
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(":");
        let _ = ht.insert(ifa.interface_name.as_str(), text);
    }
    array(ht)
}

/// Swoole's global options; rswoole applies the coroutine ones
/// (`max_coroutine`), as `Swoole\Coroutine::set()` does.
#[php_function]
pub fn swoole_async_set(settings: &ZendHashTable) -> bool {
    Coroutine::set(settings);
    true
}

/// `$offset`/`$length` of a `swoole_substr_*()` call resolved against a
/// string of `len` bytes as Swoole does (a negative offset counts from the
/// end, a length of 0 or past the end means "to the end"); `Err` says why
/// there is no such part.
fn substr_range(
    len: usize,
    offset: i64,
    length: i64,
) -> Result<std::ops::Range<usize>, &'static str> {
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    if len == 0 {
        return Err("Non-empty string required");
    }
    let offset = if offset < 0 { len_i + offset } else { offset };
    if offset < 0 {
        return Err("Offset must be not less than the negative length of the string");
    }
    if len_i <= offset {
        return Err("Offset must be less than the length of the string");
    }
    let rest = len_i - offset;
    let length = if length <= 0 || length > rest {
        rest
    } else {
        length
    };
    Ok(offset as usize..(offset + length) as usize)
}

fn call_php(name: &str, args: Vec<&dyn ext_php_rs::convert::IntoZvalDyn>) -> Zval {
    // An exception (JsonException, one from __unserialize) stays pending
    // and is thrown when this function returns.
    ZendCallable::try_from_name(name)
        .and_then(|f| f.try_call(args))
        .unwrap_or_default()
}

/// `unserialize()` of a part of `$str`, without copying it out in PHP first.
#[php_function]
#[php(defaults(length = 0))]
pub fn swoole_substr_unserialize(
    str: &Zval,
    offset: i64,
    length: i64,
    options: Option<&ZendHashTable>,
) -> Zval {
    let bytes = str.zend_str().map(|s| s.as_bytes()).unwrap_or_default();
    let Ok(range) = substr_range(bytes.len(), offset, length) else {
        let mut z = Zval::new();
        z.set_bool(false);
        return z;
    };
    let part = super::http_request::bytes_zval(&bytes[range]);
    match options {
        Some(o) => {
            let mut opts = Zval::new();
            opts.set_hashtable(o.to_owned());
            call_php("unserialize", vec![&part, &opts])
        }
        None => call_php("unserialize", vec![&part]),
    }
}

/// `json_decode()` of a part of `$str`.
#[php_function]
#[php(defaults(length = 0, depth = 512, flags = 0))]
pub fn swoole_substr_json_decode(
    str: &Zval,
    offset: i64,
    length: i64,
    associative: Option<bool>,
    depth: i64,
    flags: i64,
) -> Zval {
    let bytes = str.zend_str().map(|s| s.as_bytes()).unwrap_or_default();
    let range = match substr_range(bytes.len(), offset, length) {
        Ok(r) => r,
        Err(why) => {
            php_error(&ErrorType::Warning, why);
            return Zval::new();
        }
    };
    let part = super::http_request::bytes_zval(&bytes[range]);
    let mut assoc = Zval::new();
    match associative {
        Some(b) => assoc.set_bool(b),
        None => assoc.set_null(),
    }
    call_php("json_decode", vec![&part, &assoc, &depth, &flags])
}

/// rswoole keeps no DNS cache: nothing to clear.
#[php_function]
pub fn swoole_clear_dns_cache() {}

#[php_function]
pub fn swoole_coroutine_create(func: &Zval, params: &[&Zval]) -> PhpResult<Zval> {
    Coroutine::create(func, params)
}

#[php_function]
pub fn swoole_coroutine_defer(callback: &Zval) -> PhpResult<()> {
    Coroutine::defer(callback)
}

#[php_function]
pub fn swoole_event_wait() {
    Event::wait();
}

#[php_function]
pub fn swoole_event_rshutdown() {
    Event::rshutdown();
}

#[php_function]
pub fn swoole_event_defer(callback: &Zval) -> PhpResult<bool> {
    Event::defer(callback)
}

#[php_function]
#[php(defaults(events = 512))]
pub fn swoole_event_add(
    fd: &Zval,
    read_callback: Option<&Zval>,
    write_callback: Option<&Zval>,
    events: i64,
) -> PhpResult<Zval> {
    Event::add(fd, read_callback, write_callback, events)
}

#[php_function]
pub fn swoole_event_del(fd: &Zval) -> bool {
    Event::del(fd)
}

#[php_function]
#[php(defaults(events = 0))]
pub fn swoole_event_set(
    fd: &Zval,
    read_callback: Option<&Zval>,
    write_callback: Option<&Zval>,
    events: i64,
) -> PhpResult<bool> {
    Event::set(fd, read_callback, write_callback, events)
}

#[php_function]
#[php(defaults(events = 1536))]
pub fn swoole_event_isset(fd: &Zval, events: i64) -> bool {
    Event::isset(fd, events)
}

#[php_function]
pub fn swoole_event_dispatch() -> bool {
    Event::dispatch()
}

#[php_function]
pub fn swoole_event_write(fd: &Zval, data: &Zval) -> bool {
    Event::write(fd, data)
}

#[php_function]
#[php(defaults(timeout = 60.0, r#type = 2))]
pub fn swoole_async_dns_lookup_coro(
    domain_name: &str,
    timeout: f64,
    r#type: i64,
) -> PhpResult<Zval> {
    super::system_coro::dns_lookup(domain_name, timeout, r#type)
}

#[php_function]
pub fn swoole_event_exit() {
    Event::exit();
}

#[php_function]
#[php(optional = before, defaults(before = false))]
pub fn swoole_event_cycle(callback: Option<&Zval>, before: bool) -> PhpResult<bool> {
    Event::cycle(callback, before)
}

#[php_function]
pub fn swoole_timer_info(timer_id: i64) -> Zval {
    Timer::info(timer_id)
}

#[php_function]
pub fn swoole_timer_list() -> Zval {
    Timer::list()
}

#[php_function]
pub fn swoole_timer_stats() -> Zval {
    Timer::stats()
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module
        .function(wrap_function!(swoole_version))
        .function(wrap_function!(swoole_cpu_num))
        .function(wrap_function!(swoole_errno))
        .function(wrap_function!(swoole_strerror))
        .function(wrap_function!(swoole_error_log))
        .function(wrap_function!(swoole_error_log_ex))
        .function(wrap_function!(swoole_ignore_error))
        .function(wrap_function!(swoole_hashcode))
        .function(wrap_function!(swoole_mime_type_add))
        .function(wrap_function!(swoole_mime_type_set))
        .function(wrap_function!(swoole_mime_type_delete))
        .function(wrap_function!(swoole_mime_type_get))
        .function(wrap_function!(swoole_get_mime_type))
        .function(wrap_function!(swoole_mime_type_exists))
        .function(wrap_function!(swoole_mime_type_list))
        .function(wrap_function!(swoole_set_process_name))
        .function(wrap_function!(swoole_get_local_ip))
        .function(wrap_function!(swoole_get_local_mac))
        .function(wrap_function!(swoole_async_set))
        .function(wrap_function!(swoole_clear_dns_cache))
        .function(wrap_function!(swoole_substr_unserialize))
        .function(wrap_function!(swoole_substr_json_decode))
        .function(wrap_function!(swoole_coroutine_create))
        .function(wrap_function!(swoole_coroutine_defer))
        .function(wrap_function!(swoole_event_wait))
        .function(wrap_function!(swoole_event_rshutdown))
        .function(wrap_function!(swoole_event_defer))
        .function(wrap_function!(swoole_event_exit))
        .function(wrap_function!(swoole_event_add))
        .function(wrap_function!(swoole_event_del))
        .function(wrap_function!(swoole_event_set))
        .function(wrap_function!(swoole_event_isset))
        .function(wrap_function!(swoole_event_dispatch))
        .function(wrap_function!(swoole_event_write))
        .function(wrap_function!(swoole_async_dns_lookup_coro))
        .function(wrap_function!(swoole_event_cycle))
        .function(wrap_function!(swoole_timer_info))
        .function(wrap_function!(swoole_timer_list))
        .function(wrap_function!(swoole_timer_stats))
}
