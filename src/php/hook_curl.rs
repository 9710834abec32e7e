//! SWOOLE_HOOK_CURL / SWOOLE_HOOK_NATIVE_CURL: the function-table half of
//! the curl hooks. ext/curl's handlers stay in charge of every handle; these
//! wrappers tell the PHP half (`library/curl.php`, `Rswoole\Curl\Hook`) what
//! was configured, and ask it first whether it answers a call itself: in a
//! coroutine it performs the transfer over `Swoole\Coroutine\Http\Client`,
//! so only the calling coroutine waits. When it declines (outside a
//! coroutine, https, an option it does not do), ext/curl's own handler runs
//! on the same frame.

use std::panic::AssertUnwindSafe;
use std::ptr;

use ext_php_rs::ffi::{self, zend_execute_data, zval};
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::{try_catch, ExecutorGlobals};

use super::runtime::{self, arg, call_original, in_coroutine, num_args};

/// Run ext/curl's handler first, then record the call (`Hook::after`).
const AFTER: [&str; 6] = [
    "curl_init",
    "curl_setopt",
    "curl_setopt_array",
    "curl_reset",
    "curl_close",
    "curl_copy_handle",
];

/// Ask the PHP half first (`Hook::call`); ext/curl's handler when it
/// declines.
const ASK: [&str; 11] = [
    "curl_exec",
    "curl_getinfo",
    "curl_error",
    "curl_errno",
    "curl_multi_add_handle",
    "curl_multi_remove_handle",
    "curl_multi_exec",
    "curl_multi_select",
    "curl_multi_info_read",
    "curl_multi_close",
    "curl_multi_getcontent",
];

/// Installs (`true`) or removes every curl hook. Nothing happens when
/// ext/curl is not loaded.
pub fn set(on: bool) {
    for name in AFTER {
        if on {
            runtime::hook_function(name, after);
        } else {
            runtime::unhook_function(name);
        }
    }
    for name in ASK {
        if on {
            runtime::hook_function(name, ask);
        } else {
            runtime::unhook_function(name);
        }
    }
}

/// The hooked name this frame calls.
///
/// # Safety
/// `ex` is a live call frame.
pub(super) unsafe fn called(
    ex: *mut zend_execute_data,
    names: &[&'static str],
) -> Option<&'static str> {
    // SAFETY: a live frame's `func` is the called function; its name is a
    // zend_string.
    let name = unsafe {
        let f = (*ex).func;
        if f.is_null() || (*f).common.function_name.is_null() {
            return None;
        }
        (*(*f)
            .common
            .function_name
            .cast::<ext_php_rs::types::ZendStr>())
        .as_bytes()
    };
    names
        .iter()
        .find(|n| n.as_bytes().eq_ignore_ascii_case(name))
        .copied()
}

/// The call's arguments as a PHP array (references read through).
///
/// # Safety
/// `ex` is a live call frame.
unsafe fn args_array(ex: *mut zend_execute_data) -> Zval {
    let mut ht = ZendHashTable::new();
    // SAFETY: the caller's live frame.
    for i in 0..unsafe { num_args(ex) } {
        // SAFETY: i < num_args.
        let v = unsafe { arg(ex, i) }
            .map(|z| z.dereference().shallow_clone())
            .unwrap_or_default();
        let _ = ht.push(v);
    }
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

/// Calls the PHP function `func` with `args`. `None` when the call failed
/// or threw (the exception stays pending, so the VM throws it at the
/// curl function's caller, as ext/curl's own callbacks do).
pub(super) fn call_php(func: &str, args: &mut [Zval]) -> Option<Zval> {
    let mut name = Zval::new();
    let _ = name.set_string(func, false);
    let mut rv = Zval::new();
    let argc = args.len() as u32;
    let argv = args.as_mut_ptr();
    let outcome = try_catch(AssertUnwindSafe(|| {
        // SAFETY: on the PHP thread inside a request; the name, argument
        // array and return slot are live for the call, and only `argc`
        // arguments are read.
        unsafe {
            ffi::_call_user_function_impl(
                ptr::null_mut(),
                &raw mut name,
                &raw mut rv,
                argc,
                argv,
                ptr::null_mut(),
            )
        }
    }));
    match outcome {
        Ok(0) => {}
        Ok(_) => return None,
        Err(_) => {
            drop(rv);
            drop(name);
            // SAFETY: a fatal error in user code (a curl callback) unwinds
            // to PHP's own handler, as it would without the hook; our
            // temporaries were released above.
            unsafe { ext_php_rs::zend::bailout() }
        }
    }
    if !ExecutorGlobals::get().exception.is_null() {
        return None;
    }
    Some(rv)
}

/// # Safety
/// `rv` is the return value PHP passed to the handler.
unsafe fn ret<'a>(rv: *mut zval) -> &'a mut Zval {
    // SAFETY: Zval is a transparent wrapper of zval; `rv` is valid for the call.
    unsafe { &mut *rv.cast::<Zval>() }
}

// may_bail: yes, it runs ext/curl's function and the PHP half of the hook.
crate::php::ffi::php_fn!(throw unsafe fn after(ex: *mut zend_execute_data, rv: *mut zval) => after_body);
/// `curl_init`, `curl_setopt(_array)`, `curl_reset`, `curl_close`,
/// `curl_copy_handle`: ext/curl does the work; the PHP half records what a
/// coroutine transfer of this handle needs.
unsafe fn after_body(ex: *mut zend_execute_data, rv: *mut zval) {
    // SAFETY: PHP's frame for this call.
    let Some(name) = (unsafe { called(ex, &AFTER) }) else {
        return;
    };
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { call_original(name, ex, rv) };
    if !ExecutorGlobals::get().exception.is_null() {
        return;
    }
    // SAFETY: as above.
    let result = unsafe { ret(rv) }.shallow_clone();
    let mut fname = Zval::new();
    let _ = fname.set_string(name, false);
    // SAFETY: as above.
    let mut args = [fname, unsafe { args_array(ex) }, result];
    let _ = call_php("Rswoole\\Curl\\Hook::after", &mut args);
}

// may_bail: yes, it runs the PHP half of the hook.
crate::php::ffi::php_fn!(throw unsafe fn ask(ex: *mut zend_execute_data, rv: *mut zval) => ask_body);
/// `curl_exec`, `curl_getinfo`, `curl_error`, `curl_errno` and the
/// `curl_multi_*` calls: the PHP half answers `[value, [arg => out]]`
/// (the second part for by-reference arguments) or `null` to decline.
unsafe fn ask_body(ex: *mut zend_execute_data, rv: *mut zval) {
    // SAFETY: PHP's frame for this call.
    let Some(name) = (unsafe { called(ex, &ASK) }) else {
        return;
    };
    let mut fname = Zval::new();
    let _ = fname.set_string(name, false);
    let mut co = Zval::new();
    co.set_bool(in_coroutine());
    // SAFETY: PHP's frame for this call.
    let mut args = [fname, unsafe { args_array(ex) }, co];
    let answer = call_php("Rswoole\\Curl\\Hook::call", &mut args);
    drop(args);
    if !ExecutorGlobals::get().exception.is_null() {
        return;
    }
    let Some(answer) = answer.filter(|a| a.is_array()) else {
        // SAFETY: the frame and return slot PHP gave this hook.
        unsafe { call_original(name, ex, rv) };
        return;
    };
    let Some(a) = answer.array() else {
        return;
    };
    if let Some(v) = a.get_index(0) {
        // SAFETY: PHP's return slot for this call.
        unsafe { ret(rv) }.set_zval_ref(v);
    }
    if let Some(outs) = a.get_index(1).and_then(Zval::array) {
        for (k, v) in outs {
            let ext_php_rs::types::ArrayKey::Long(i) = k else {
                continue;
            };
            // SAFETY: PHP's frame for this call.
            if let Some(target) = unsafe { arg(ex, i as usize) } {
                if let Some(r) = target.reference_mut() {
                    r.set_zval_ref(v);
                }
            }
        }
    }
}

/// Copies `v` into `self`, adding a reference (the old value is released).
trait SetRef {
    fn set_zval_ref(&mut self, v: &Zval);
}

impl SetRef for Zval {
    fn set_zval_ref(&mut self, v: &Zval) {
        *self = v.shallow_clone();
    }
}
