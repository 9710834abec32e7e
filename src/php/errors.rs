//! `swoole_last_error()`, the `SWOOLE_ERROR_*` codes it returns, their texts
//! (`swoole_strerror()`) and the codes `swoole_ignore_error()` silences.

use std::cell::Cell;
use std::sync::Mutex;

use ext_php_rs::prelude::*;

/// Swoole's `Swoole\Error` for a coroutine-only API called outside any
/// coroutine (code `SWOOLE_ERROR_CO_OUT_OF_COROUTINE`, also the last error).
/// Swoole makes it a fatal error; rswoole keeps it catchable (docs/compat.md).
pub fn out_of_coroutine() -> PhpException {
    set_last_error(SWOOLE_ERROR_CO_OUT_OF_COROUTINE);
    PhpException::new(
        "API must be called in the coroutine".into(),
        SWOOLE_ERROR_CO_OUT_OF_COROUTINE as i32,
        super::exception::error_ce(),
    )
}

/// The running coroutine's id, or `out_of_coroutine()` for an API that
/// only runs in one.
pub fn need_coroutine() -> PhpResult<crate::coro::Cid> {
    let cid = crate::coro::current();
    if cid < 0 {
        return Err(out_of_coroutine());
    }
    Ok(cid)
}

pub const SWOOLE_ERROR_INVALID_PARAMS: i64 = 505;
pub const SWOOLE_ERROR_WRONG_OPERATION: i64 = 509;
pub const SWOOLE_ERROR_NO_PAYLOAD: i64 = 550;
pub const SWOOLE_ERROR_SESSION_NOT_EXIST: i64 = 1005;
pub const SWOOLE_ERROR_CO_OUT_OF_COROUTINE: i64 = 10001;
pub const SWOOLE_ERROR_CO_HAS_BEEN_BOUND: i64 = 10002;
pub const SWOOLE_ERROR_CO_NOT_EXISTS: i64 = 10016;
pub const SWOOLE_ERROR_CO_TIMEDOUT: i64 = 10018;
pub const SWOOLE_ERROR_HTTP_CONTEXT_UNAVAILABLE: i64 = 7106;

thread_local! {
    static LAST: Cell<i64> = const { Cell::new(0) };
}

extern "C" {
    fn zend_error(ty: std::ffi::c_int, format: *const std::ffi::c_char, ...);
}

/// A warning that names `api` itself (`"Swoole\\Server\\Port::on(): ..."`),
/// where the running method is another one (Swoole reports some errors from
/// the method it delegates to).
pub fn warning_as(api: &str, msg: &str) {
    raise_as(&ext_php_rs::flags::ErrorType::Warning, api, msg);
}

/// A message of `level` (a warning, a deprecation) naming `api`.
pub fn raise_as(level: &ext_php_rs::flags::ErrorType, api: &str, msg: &str) {
    let Ok(text) = std::ffi::CString::new(format!("{api}: {msg}")) else {
        return;
    };
    let Ok(level) = std::ffi::c_int::try_from(level.bits()) else {
        return;
    };
    // SAFETY: zend_error is printf-like: the text goes through "%s", both
    // pointers are NUL-terminated and outlive the call; the levels used
    // (warnings, deprecations) do not bail out.
    unsafe { zend_error(level, c"%s".as_ptr(), text.as_ptr()) };
}

/// How Swoole names a callable in its messages: `Class::method`, a function
/// name, or `Closure::__invoke`.
pub fn callable_name(z: &ext_php_rs::types::Zval) -> String {
    if let Some(s) = z.str() {
        return s.to_string();
    }
    if let Some(arr) = z.array() {
        let part = |i: i64| arr.get_index(i);
        let class = part(0).and_then(|c| {
            c.str()
                .map(str::to_string)
                .or_else(|| c.object().and_then(|o| o.get_class_name().ok()))
        });
        let method = part(1).and_then(|m| m.str().map(str::to_string));
        if let (Some(c), Some(m)) = (class, method) {
            return format!("{c}::{m}");
        }
    }
    if let Some(o) = z.object() {
        if let Ok(c) = o.get_class_name() {
            return format!("{c}::__invoke");
        }
    }
    "callback".into()
}

/// The codes `swoole_ignore_error()` silenced. A plain static, not a
/// thread-local: the extension's static TLS block is small (tools/tls-check.sh).
static IGNORED: Mutex<Vec<i64>> = Mutex::new(Vec::new());

/// Swoole's `SW_ERROR_BEGIN` and `SW_ERROR_END`: codes strictly between are
/// Swoole's own, the rest are errno values.
pub const SW_ERROR_BEGIN: i64 = 500;
pub const SW_ERROR_END: i64 = 10020;

/// The text Swoole 6.2.2 gives each of its error codes.
const TEXTS: &[(i64, &str)] = &[
    (501, "Malloc fail"),
    (502, "System call fail"),
    (503, "PHP fatal error"),
    (504, "Name too long"),
    (505, "Invalid params"),
    (506, "Queue full"),
    (507, "Operation not support"),
    (508, "Protocol error"),
    (509, "Wrong operation"),
    (510, "PHP runtime notice"),
    (511, "For test"),
    (550, "No payload"),
    (600, "Undefined behavior"),
    (601, "Not thread safety"),
    (700, "File not exist"),
    (701, "File too large"),
    (702, "File empty"),
    (703, "Dir not exist"),
    (710, "DNS Lookup duplicate request"),
    (711, "DNS Lookup resolve failed"),
    (712, "DNS Lookup resolve timeout"),
    (713, "DNS Lookup unsupported"),
    (714, "DNS Lookup no server"),
    (720, "Bad ipv6 address"),
    (721, "Unregistered signal"),
    (722, "Bad host addr"),
    (723, "Bad port"),
    (724, "Bad socket type"),
    (800, "Event remove failed"),
    (801, "Event add failed"),
    (802, "Event update failed"),
    (803, "Event unknown data"),
    (1001, "Session closed by server"),
    (1002, "Session closed by client"),
    (1003, "Session closing"),
    (1004, "Session closed"),
    (1005, "Session not exist"),
    (1006, "Session invalid id"),
    (1007, "Session discard timeout data"),
    (1008, "Session discard data"),
    (1009, "Output buffer overflow"),
    (1010, "Output send yield"),
    (1011, "SSL not ready"),
    (1012, "SSL cannot use senfile"),
    (1013, "SSL empty peer certificate"),
    (1014, "SSL verify failed"),
    (1015, "SSL bad client"),
    (1016, "SSL bad protocol"),
    (1017, "SSL reset"),
    (1018, "SSL handshake failed"),
    (1019, "SSL create context failed"),
    (1020, "SSL create session failed"),
    (1201, "Package length too large"),
    (1202, "Package length not found"),
    (1203, "Data length too large"),
    (1204, "Package malformed data"),
    (2001, "Task package too big"),
    (2002, "Task dispatch fail"),
    (2003, "Task timeout"),
    (3001, "Http2 stream id too big"),
    (3002, "Http2 stream no header"),
    (3003, "Http2 stream not found"),
    (3004, "Http2 stream ignore"),
    (3005, "Http2 send control frame failed"),
    (3006, "Http2 internal error"),
    (4001, "Aio bad request"),
    (4002, "Aio canceled"),
    (4003, "Aio timeout"),
    (5001, "Client no connection"),
    (6001, "Socket closed"),
    (6002, "Socket poll timeout"),
    (6003, "Socket not exists"),
    (7001, "Socks5 unsupport version"),
    (7002, "Socks5 unsupport method"),
    (7003, "Socks5 auth failed"),
    (7004, "Socks5 server error"),
    (7005, "Socks5 handshake failed"),
    (7006, "Socks5 connect failed"),
    (7101, "Http proxy handshake error"),
    (7102, "Http invalid protocol"),
    (7103, "Http proxy handshake failed"),
    (7104, "Http proxy bad response"),
    (7105, "Http conflict header"),
    (7106, "Http context unavailable"),
    (7107, "Http cookie unavailable"),
    (8501, "Websocket bad client"),
    (8502, "Websocket bad opcode"),
    (8503, "Websocket unconnected"),
    (8504, "Websocket handshake failed"),
    (8505, "Websocket pack failed"),
    (8506, "Websocket unpack failed"),
    (8507, "Websocket incomplete packet"),
    (9001, "Server must created before client"),
    (9002, "Server too many socket"),
    (9003, "Server worker terminated"),
    (9004, "Server invalid listen port"),
    (9005, "Server too many listen port"),
    (9006, "Server pipe buffer full"),
    (9007, "Server no idle worker"),
    (9008, "Server only start one"),
    (9009, "Server send in master"),
    (9010, "Server invalid request"),
    (9011, "Server connect fail"),
    (9012, "Server invalid command"),
    (9013, "Server is not regular file"),
    (9014, "Server send to woker timeout"),
    (9015, "Server invalid callback"),
    (9016, "Server unrelated thread"),
    (9101, "Server worker exit timeout"),
    (9102, "Server worker abnormal pipe data"),
    (9103, "Server worker unprocessed data"),
    (10001, "Coroutine out of coroutine"),
    (10002, "Coroutine has been bound"),
    (10003, "Coroutine has been discarded"),
    (10004, "Coroutine mutex double unlock"),
    (10005, "Coroutine block object locked"),
    (10006, "Coroutine block object waiting"),
    (10007, "Coroutine yield failed"),
    (10008, "Coroutine getcontext failed"),
    (10009, "Coroutine swapcontext failed"),
    (10010, "Coroutine makecontext failed"),
    (10011, "Coroutine iocpinit failed"),
    (10012, "Coroutine protect stack failed"),
    (10013, "Coroutine std thread link error"),
    (10014, "Coroutine disabled multi thread"),
    (10015, "Coroutine cannot cancel"),
    (10016, "Coroutine not exists"),
    (10017, "Coroutine canceled"),
    (10018, "Coroutine timedout"),
    (10019, "Coroutine socket close wait"),
];

/// Swoole's text for one of its codes, `strerror()` below 500, and
/// `Unknown error N` for a code Swoole does not know.
pub fn swoole_error_text(code: i64) -> String {
    if code < SW_ERROR_BEGIN {
        return os_error_text(code);
    }
    match TEXTS.binary_search_by_key(&code, |(c, _)| *c) {
        Ok(i) => TEXTS[i].1.to_string(),
        Err(_) => format!("Unknown error {code}"),
    }
}

/// `strerror(code)`, as glibc words it (`Unknown error N` included).
pub fn os_error_text(code: i64) -> String {
    let Ok(code) = i32::try_from(code) else {
        return format!("Unknown error {code}");
    };
    let mut buf = [0 as std::ffi::c_char; 256];
    // SAFETY: `buf` is a live, writable buffer of the length passed; the
    // XSI strerror_r writes a NUL-terminated message into it.
    let rc = unsafe { libc::strerror_r(code, buf.as_mut_ptr(), buf.len()) };
    if rc != 0 {
        return format!("Unknown error {code}");
    }
    // SAFETY: strerror_r succeeded, so `buf` holds a NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

/// `swoole_ignore_error($code)`: log lines for `code` are no longer written.
pub fn ignore_error(code: i64) {
    let mut list = IGNORED.lock().unwrap_or_else(|p| p.into_inner());
    if !list.contains(&code) {
        list.push(code);
    }
}

pub fn is_ignored(code: i64) -> bool {
    IGNORED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .contains(&code)
}

/// Records the code `swoole_last_error()` returns next.
pub fn set_last_error(code: i64) {
    LAST.with(|l| l.set(code));
}

#[php_function]
pub fn swoole_last_error() -> i64 {
    LAST.with(Cell::get)
}

#[php_function]
pub fn swoole_clear_error() {
    set_last_error(0);
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    let codes: &[(&str, i64)] = &[
        ("SWOOLE_ERROR_INVALID_PARAMS", SWOOLE_ERROR_INVALID_PARAMS),
        (
            "SWOOLE_ERROR_CO_OUT_OF_COROUTINE",
            SWOOLE_ERROR_CO_OUT_OF_COROUTINE,
        ),
        (
            "SWOOLE_ERROR_CO_HAS_BEEN_BOUND",
            SWOOLE_ERROR_CO_HAS_BEEN_BOUND,
        ),
        ("SWOOLE_ERROR_CO_NOT_EXISTS", SWOOLE_ERROR_CO_NOT_EXISTS),
        ("SWOOLE_ERROR_CO_TIMEDOUT", SWOOLE_ERROR_CO_TIMEDOUT),
        (
            "SWOOLE_ERROR_HTTP_CONTEXT_UNAVAILABLE",
            SWOOLE_ERROR_HTTP_CONTEXT_UNAVAILABLE,
        ),
    ];
    let mut m = module
        .function(wrap_function!(swoole_last_error))
        .function(wrap_function!(swoole_clear_error));
    for (name, code) in codes {
        m = m.constant((*name, *code, &[]));
    }
    m
}
