//! SWOOLE_HOOK_PROC: a process `proc_open()` starts in a coroutine is a
//! resource of type `process/coroutine`, as Swoole's is. PHP's own
//! `proc_open()` still starts it; the hook re-tags the resource, and
//! `proc_close`, `proc_get_status` and `proc_terminate` tag it back as
//! PHP's for the length of their call. A tagged resource freed without
//! `proc_close()` is handed to PHP's own destructor. In a coroutine, a
//! descriptor spec item that is neither an array nor a stream gets Swoole's
//! warning and `false` instead of PHP 8's `ValueError`.

use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicI32, Ordering};

use ext_php_rs::ffi::{zend_execute_data, zend_resource, zval};
use ext_php_rs::types::Zval;

use super::runtime::{self, arg, call_original, in_coroutine};

extern "C" {
    fn zend_register_list_destructors_ex(
        ld: Option<unsafe extern "C" fn(*mut zend_resource)>,
        pld: Option<unsafe extern "C" fn(*mut zend_resource)>,
        type_name: *const c_char,
        module_number: c_int,
    ) -> c_int;
    fn zend_list_close(res: *mut zend_resource);
}

/// Our resource type (`process/coroutine`), 0 until registered.
static CO_TYPE: AtomicI32 = AtomicI32::new(0);
/// PHP's `process` resource type, learnt from the first hooked call.
static PHP_TYPE: AtomicI32 = AtomicI32::new(0);

const WRAPPED: [&str; 3] = ["proc_close", "proc_get_status", "proc_terminate"];

/// Installs (`true`) or removes the hooks.
pub fn set(on: bool) {
    if on {
        if CO_TYPE.load(Ordering::SeqCst) == 0 {
            // SAFETY: registers a destructor table entry with a static name,
            // on the PHP thread.
            let t = unsafe {
                zend_register_list_destructors_ex(
                    Some(dtor),
                    None,
                    c"process/coroutine".as_ptr(),
                    0,
                )
            };
            CO_TYPE.store(t, Ordering::SeqCst);
        }
        runtime::hook_function("proc_open", proc_open);
        let hooks: [runtime::Handler; 3] = [proc_close, proc_get_status, proc_terminate];
        for (name, h) in WRAPPED.into_iter().zip(hooks) {
            runtime::hook_function(name, h);
        }
    } else {
        runtime::unhook_function("proc_open");
        for name in WRAPPED {
            runtime::unhook_function(name);
        }
    }
}

/// The resource behind a zval, if any.
fn resource_of(z: &Zval) -> Option<*mut zend_resource> {
    let z = z.dereference();
    if !z.is_resource() {
        return None;
    }
    // SAFETY: a resource zval's value is its zend_resource pointer.
    let r = unsafe { z.value.res };
    (!r.is_null()).then_some(r)
}

// may_bail: no (PHP's own destructor waits for the process).
crate::php::ffi::php_fn!(log unsafe fn dtor(res: *mut zend_resource) => dtor_body);
/// Our destructor: the process goes to PHP's own (which waits for it and
/// closes its handle), through a stand-in resource of PHP's type that is
/// in no list (so nothing is inserted while the engine walks its list).
unsafe fn dtor_body(res: *mut zend_resource) {
    let php = PHP_TYPE.load(Ordering::SeqCst);
    // SAFETY: `res` is the resource being destroyed, handed over by the engine.
    let ptr = unsafe { (*res).ptr };
    if php <= 0 || ptr.is_null() {
        return;
    }
    // SAFETY: an all-zero zend_resource is valid; with a reference count
    // of 1 and PHP's type, zend_list_close() runs that type's destructor
    // on `ptr` once and marks the stand-in closed (it is never freed: it
    // lives on this stack frame).
    unsafe {
        let mut tmp: zend_resource = std::mem::zeroed();
        tmp.gc.refcount = 1;
        tmp.handle = -1;
        tmp.type_ = php;
        tmp.ptr = ptr;
        zend_list_close(&raw mut tmp);
    }
}

/// True when every item of a descriptor spec is an array or a resource
/// (PHP 8 throws a `ValueError` for anything else; Swoole's hooked
/// `proc_open()` warns and returns false).
fn spec_ok(spec: &Zval) -> bool {
    spec.dereference().array().is_none_or(|a| {
        a.values()
            .all(|v| v.dereference().is_array() || v.dereference().is_resource())
    })
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn proc_open(ex: *mut zend_execute_data, rv: *mut zval) => proc_open_body);
unsafe fn proc_open_body(ex: *mut zend_execute_data, rv: *mut zval) {
    // SAFETY: the frame PHP gave this hook.
    let spec = unsafe { arg(ex, 1) };
    if in_coroutine() && spec.is_some_and(|s| !spec_ok(s)) {
        ext_php_rs::error::php_error(
            &ext_php_rs::flags::ErrorType::Warning,
            "Descriptor item must be either an array or a File-Handle",
        );
        // SAFETY: PHP's return slot for this call.
        unsafe { (*rv.cast::<Zval>()).set_bool(false) };
        return;
    }
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { call_original("proc_open", ex, rv) };
    let co = CO_TYPE.load(Ordering::SeqCst);
    if co <= 0 || !in_coroutine() {
        return;
    }
    // SAFETY: PHP's return slot for this call.
    let rv = unsafe { &*rv.cast::<Zval>() };
    if let Some(r) = resource_of(rv) {
        // SAFETY: the live resource proc_open just made.
        unsafe {
            PHP_TYPE.store((*r).type_, Ordering::SeqCst);
            (*r).type_ = co;
        }
    }
}

/// Runs PHP's `name` on a resource tagged back as PHP's for the call.
///
/// # Safety
/// `ex` and `rv` are the frame and return slot PHP passed to the hook.
unsafe fn wrapped(name: &str, ex: *mut zend_execute_data, rv: *mut zval) {
    let (co, php) = (
        CO_TYPE.load(Ordering::SeqCst),
        PHP_TYPE.load(Ordering::SeqCst),
    );
    // SAFETY: the caller's frame.
    let res = unsafe { arg(ex, 0) }
        .and_then(|z| resource_of(z))
        // SAFETY: a live resource of this call's argument.
        .filter(|r| co > 0 && php > 0 && unsafe { (**r).type_ } == co);
    if let Some(r) = res {
        // SAFETY: as above.
        unsafe { (*r).type_ = php };
    }
    // SAFETY: the caller's frame and return slot.
    unsafe { call_original(name, ex, rv) };
    if let Some(r) = res {
        // SAFETY: the resource outlives the call (the argument holds it);
        // once closed its type is -1 and stays so.
        unsafe {
            if (*r).type_ == php {
                (*r).type_ = co;
            }
        }
    }
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn proc_close(ex: *mut zend_execute_data, rv: *mut zval) => proc_close_body);
unsafe fn proc_close_body(ex: *mut zend_execute_data, rv: *mut zval) {
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { wrapped("proc_close", ex, rv) }
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn proc_get_status(ex: *mut zend_execute_data, rv: *mut zval) => proc_get_status_body);
unsafe fn proc_get_status_body(ex: *mut zend_execute_data, rv: *mut zval) {
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { wrapped("proc_get_status", ex, rv) }
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn proc_terminate(ex: *mut zend_execute_data, rv: *mut zval) => proc_terminate_body);
unsafe fn proc_terminate_body(ex: *mut zend_execute_data, rv: *mut zval) {
    // SAFETY: the frame and return slot PHP gave this hook.
    unsafe { wrapped("proc_terminate", ex, rv) }
}
