//! SWOOLE_HOOK_SOCKETS: ext-sockets' `socket_*` functions, routed to the
//! PHP half (`library/sockets.php`, `swoole_socket_*()`) that does them over
//! `Swoole\Coroutine\Socket`. In a coroutine `socket_create()`,
//! `socket_create_listen()`, `socket_create_pair()` and
//! `socket_import_stream()` make coroutine sockets; every other hooked call
//! goes to the PHP half when its first argument is one, and to ext-sockets'
//! own handler otherwise (a `\Socket`, or a call outside a coroutine).

use ext_php_rs::ffi::{zend_execute_data, zval};
use ext_php_rs::types::Zval;
use ext_php_rs::zend::ExecutorGlobals;

use super::runtime::{self, arg, call_original, in_coroutine, num_args};

/// The hooked functions (Swoole 6.2.2's list).
const NAMES: [&str; 26] = [
    "socket_create",
    "socket_create_listen",
    "socket_create_pair",
    "socket_connect",
    "socket_write",
    "socket_read",
    "socket_send",
    "socket_recv",
    "socket_sendto",
    "socket_recvfrom",
    "socket_bind",
    "socket_listen",
    "socket_accept",
    "socket_getpeername",
    "socket_getsockname",
    "socket_getopt",
    "socket_get_option",
    "socket_setopt",
    "socket_set_option",
    "socket_set_block",
    "socket_set_nonblock",
    "socket_shutdown",
    "socket_close",
    "socket_clear_error",
    "socket_last_error",
    "socket_import_stream",
];

/// Functions that make a socket: routed by where they are called.
const MAKERS: [&str; 4] = [
    "socket_create",
    "socket_create_listen",
    "socket_create_pair",
    "socket_import_stream",
];

const CO_SOCKET: &str = "Swoole\\Coroutine\\Socket";

/// Installs (`true`) or removes the hooks. Nothing happens when ext-sockets
/// is not loaded.
pub fn set(on: bool) {
    for name in NAMES {
        if on {
            runtime::hook_function(name, forward);
        } else {
            runtime::unhook_function(name);
        }
    }
}

/// True when `z` is a `Swoole\Coroutine\Socket`.
fn is_co_socket(z: &Zval) -> bool {
    z.dereference()
        .object()
        .and_then(|o| o.get_class_name().ok())
        .is_some_and(|n| n == CO_SOCKET)
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn forward(ex: *mut zend_execute_data, rv: *mut zval) => forward_body);
unsafe fn forward_body(ex: *mut zend_execute_data, rv: *mut zval) {
    // SAFETY: PHP's frame for this call.
    let Some(name) = (unsafe { super::hook_curl::called(ex, &NAMES) }) else {
        return;
    };
    // SAFETY: as above.
    let argc = unsafe { num_args(ex) };
    // SAFETY: as above.
    let first = unsafe { arg(ex, 0) }.map(|z| is_co_socket(z));
    let ours = if MAKERS.contains(&name) {
        in_coroutine()
    } else {
        match first {
            Some(co) => co,
            // socket_last_error()/socket_clear_error() without a socket:
            // the hooked calls' own last error, in a coroutine.
            None => argc == 0 && in_coroutine(),
        }
    };
    if !ours {
        // SAFETY: the frame and return slot PHP gave this hook.
        unsafe { call_original(name, ex, rv) };
        return;
    }
    // The frame's arguments as they are: a by-reference one stays a
    // reference, so the PHP function writes through it.
    let mut args: Vec<Zval> = (0..argc)
        .map(|i| {
            // SAFETY: i < num_args of PHP's frame.
            unsafe { arg(ex, i) }
                .map(|z| z.shallow_clone())
                .unwrap_or_default()
        })
        .collect();
    let target = format!("swoole_{name}");
    let answer = super::hook_curl::call_php(&target, &mut args);
    drop(args);
    if !ExecutorGlobals::get().exception.is_null() {
        return;
    }
    if let Some(v) = answer {
        // SAFETY: Zval is a transparent wrapper of zval; PHP's return slot.
        let rv = unsafe { &mut *rv.cast::<Zval>() };
        *rv = v;
    }
}
