//! SWOOLE_HOOK_NET_FUNCTION's `gethostbyname`: in a coroutine the name is
//! resolved on tokio's blocking-thread pool while only the calling
//! coroutine waits. Outside a coroutine, and for a name PHP itself rejects
//! (too long, not a string), PHP's own function runs.

use std::net::{IpAddr, ToSocketAddrs};

use ext_php_rs::ffi::{zend_execute_data, zval};
use ext_php_rs::types::Zval;

use super::runtime::{self, arg, call_original, in_coroutine};

/// PHP's MAXFQDNLEN.
const MAX_NAME: usize = 255;

pub fn set(on: bool) {
    if on {
        runtime::hook_function("gethostbyname", gethostbyname);
    } else {
        runtime::unhook_function("gethostbyname");
    }
}

/// The first IPv4 address of `name`, as PHP's `gethostbyname` answers.
fn resolve(name: &str) -> Option<String> {
    (name, 0u16)
        .to_socket_addrs()
        .ok()?
        .map(|a| a.ip())
        .find(IpAddr::is_ipv4)
        .map(|ip| ip.to_string())
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn gethostbyname(ex: *mut zend_execute_data, rv: *mut zval) => gethostbyname_body);
unsafe fn gethostbyname_body(ex: *mut zend_execute_data, rv: *mut zval) {
    if in_coroutine() {
        // SAFETY: PHP's frame for this call.
        let name = unsafe { arg(ex, 0) }.and_then(|z| z.str().map(str::to_owned));
        if let Some(name) = name.filter(|n| n.len() <= MAX_NAME && !n.is_empty()) {
            let lookup = name.clone();
            let answer = crate::coro::io::run(async move {
                tokio::task::spawn_blocking(move || resolve(&lookup))
                    .await
                    .ok()
                    .flatten()
            });
            if let Ok(answer) = answer {
                // SAFETY: PHP's return slot for this call.
                let rv = unsafe { &mut *rv.cast::<Zval>() };
                // PHP answers the name itself when it does not resolve.
                let _ = rv.set_string(&answer.unwrap_or(name), false);
                return;
            }
        }
    }
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { call_original("gethostbyname", ex, rv) }
}
