//! PHP's own argument rules for every function and method of the module:
//! weak-mode scalar coercion, strict-mode `TypeError`s and the PHP 8.1
//! "Passing null" deprecation, exactly as `zend_parse_parameters` gives them.
//!
//! ext-php-rs parses arguments itself and only takes a zval of the exact
//! type (`"8000"` for an `int` is "Invalid value given for argument port").
//! Internal functions written in C coerce in weak mode: `new
//! Swoole\Http\Server('127.0.0.1', '8000')` is how Laravel Octane starts a
//! server. So, once every class and function is registered (end of MINIT),
//! `install()` puts one trampoline in front of each handler of the module.
//! The trampoline reads the function's arg_info as ext-php-rs declared it
//! (`arginfo::checking_arg_info`: for a function `arginfo.rs` gave Swoole's
//! declared types, the copy it kept), converts each mismatching scalar argument in place with the
//! engine's `zend_verify_scalar_type_hint` (the routine PHP uses for typed
//! parameters, honouring the caller's `declare(strict_types=1)`), and only
//! then calls the original handler. A value that cannot be converted gets
//! PHP's message: `Swoole\Timer::after(): Argument #1 ($ms) must be of type
//! int, array given`.
//!
//! The original handler lives in the function's `reserved[]` slot that
//! `zend_get_resource_handle` hands to this module, so the call costs one
//! load and a type-mask test per argument when the types already match.

use std::ffi::{c_char, c_int, CStr, CString};

use ext_php_rs::ffi::{
    zend_class_entry, zend_execute_data, zend_function, zend_internal_arg_info, zval, HashTable,
    _ZEND_SEND_MODE_SHIFT, IS_NULL, IS_UNDEF, MAY_BE_BOOL, ZEND_ACC_STRICT_TYPES,
};
use ext_php_rs::flags::ErrorType;

extern "C" {
    // ZEND_API bool zend_verify_scalar_type_hint(uint32_t type_mask, zval *arg,
    //     bool strict, bool is_internal_arg);
    fn zend_verify_scalar_type_hint(
        type_mask: u32,
        arg: *mut zval,
        strict: bool,
        internal: bool,
    ) -> bool;
    // ZEND_API ZEND_COLD void zend_argument_type_error(uint32_t arg_num,
    //     const char *format, ...);
    fn zend_argument_type_error(arg_num: u32, format: *const c_char, ...);
    // ZEND_API const char *zend_zval_type_name(const zval *arg);
    fn zend_zval_type_name(arg: *const zval) -> *const c_char;
    // ZEND_API int zend_get_resource_handle(const char *module_name);
    fn zend_get_resource_handle(module_name: *const c_char) -> c_int;
}

const MAY_BE_NULL: u32 = 1 << IS_NULL;
const MAY_BE_LONG: u32 = 1 << 4;
const MAY_BE_DOUBLE: u32 = 1 << 5;
const MAY_BE_STRING: u32 = 1 << 6;
const MAY_BE_ARRAY: u32 = 1 << 7;
/// The types this module coerces or reports: scalars, arrays and null.
const HANDLED: u32 = MAY_BE_NULL | MAY_BE_BOOL | MAY_BE_LONG | MAY_BE_DOUBLE | MAY_BE_STRING;
/// The bits of a `zend_type` mask that name types (`_ZEND_TYPE_MAY_BE_MASK`):
/// everything below the extra flags (names, lists, send mode, variadic).
const MAY_BE_MASK: u32 = (1 << 18) - 1;
/// `_ZEND_TYPE_KIND_MASK`: a class name, a list or a union of class names.
const TYPE_KIND_MASK: u32 = 0x7 << 22;

/// `ZEND_ACC_STATIC`.
const ZEND_ACC_STATIC: u32 = 1 << 4;

type Handler = unsafe extern "C" fn(*mut zend_execute_data, *mut zval);

/// The `reserved[]` index this module owns, or `usize::MAX` before
/// `install()` (a trampoline never runs before that).
static SLOT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(usize::MAX);

/// Wraps every internal function and method registered by the module named
/// `swoole`. Called once, at the end of MINIT.
pub fn install() {
    // SAFETY: MINIT is single-threaded; the resource handle call only
    // increments the engine's counter.
    let slot = unsafe { zend_get_resource_handle(c"swoole".as_ptr()) };
    let Ok(slot) = usize::try_from(slot) else {
        ext_php_rs::error::php_error(
            &ErrorType::CoreWarning,
            "rswoole: no reserved function slot left; scalar arguments are not coerced",
        );
        return;
    };
    SLOT.store(slot, std::sync::atomic::Ordering::SeqCst);
    // SAFETY: MINIT, single-threaded: CG(function_table) and CG(class_table)
    // hold every registered function and class and nothing else touches
    // them now. Only entries of this module are changed.
    unsafe {
        let cg = std::ptr::addr_of!(ext_php_rs::ffi::compiler_globals);
        wrap_table((*cg).function_table, slot);
        let classes = (*cg).class_table;
        for_each_ptr(classes, |ce| {
            let ce = ce.cast::<zend_class_entry>();
            // ZEND_INTERNAL_CLASS = 1
            if (*ce).type_ == 1 && is_ours((*ce).info.internal.module) {
                wrap_table(std::ptr::addr_of_mut!((*ce).function_table), slot);
            }
        });
    }
}

/// Whether a module entry pointer is this module (PHP copies the entry at
/// registration, so compare names).
///
/// # Safety
/// `module` is null or a registered module entry.
unsafe fn is_ours(module: *const ext_php_rs::ffi::zend_module_entry) -> bool {
    // SAFETY: per the contract; the name is a static C string.
    unsafe {
        !module.is_null()
            && !(*module).name.is_null()
            && CStr::from_ptr((*module).name).to_bytes() == b"swoole"
    }
}

/// Calls `f` with the pointer value of each element of a hash table of
/// pointers (IS_PTR buckets).
///
/// # Safety
/// `ht` is a valid, packed-or-hash `HashTable` whose values hold pointers,
/// and it is not modified during the walk.
unsafe fn for_each_ptr(ht: *mut HashTable, mut f: impl FnMut(*mut std::ffi::c_void)) {
    if ht.is_null() {
        return;
    }
    // SAFETY: per the contract; buckets 0..nNumUsed are initialised, and
    // deleted ones are IS_UNDEF.
    unsafe {
        let used = (*ht).nNumUsed as usize;
        let data = (*ht).__bindgen_anon_1.arData;
        for i in 0..used {
            let val = std::ptr::addr_of_mut!((*data.add(i)).val);
            if (*val).u1.type_info & 0xff == IS_UNDEF {
                continue;
            }
            f((*val).value.ptr);
        }
    }
}

/// Wraps the functions of this module in one function table.
///
/// # Safety
/// MINIT; `table` is a function table (values are `zend_function *`).
unsafe fn wrap_table(table: *mut HashTable, slot: usize) {
    // SAFETY: per the contract.
    unsafe {
        for_each_ptr(table, |func| {
            let func = func.cast::<zend_function>();
            // ZEND_INTERNAL_FUNCTION = 1
            if (*func).type_ != 1 {
                return;
            }
            let ifn = &mut (*func).internal_function;
            if !is_ours(ifn.module) {
                return;
            }
            let Some(orig) = ifn.handler else { return };
            if orig as usize == trampoline as *const () as usize {
                return;
            }
            // Instance methods are wrapped even without checked arguments:
            // the trampoline turns ext-php-rs's error for an object whose
            // constructor never ran into Swoole's.
            let instance_method = !ifn.scope.is_null() && ifn.fn_flags & ZEND_ACC_STATIC == 0;
            if !instance_method && !needs_check(ifn) {
                return;
            }
            ifn.reserved[slot] = orig as *mut std::ffi::c_void;
            ifn.handler = Some(trampoline);
        });
    }
}

/// Whether any declared parameter has a type this module checks.
fn needs_check(ifn: &ext_php_rs::ffi::zend_internal_function) -> bool {
    (0..ifn.num_args as usize).any(|i| {
        // SAFETY: arg_info has num_args entries after the return-type entry
        // the engine skipped at registration.
        let info = unsafe { &*super::arginfo::checking_arg_info(ifn).add(i) };
        checked_mask(info).is_some()
    })
}

/// The type mask of a parameter this module checks: by value, no class
/// names, and only scalar, array and null types (not mixed, object,
/// callable or iterable, which ext-php-rs checks itself).
fn checked_mask(info: &zend_internal_arg_info) -> Option<u32> {
    let mask = info.type_.type_mask;
    if (mask >> _ZEND_SEND_MODE_SHIFT) & 3 != 0 || mask & TYPE_KIND_MASK != 0 {
        return None;
    }
    let types = mask & MAY_BE_MASK;
    if types == 0 || types & !(HANDLED | MAY_BE_ARRAY) != 0 {
        return None;
    }
    Some(types)
}

/// The engine's name for a type mask, as in its messages: `int`, `?int`,
/// `string|array`.
fn type_name(types: u32) -> String {
    let mut names = Vec::new();
    for (bit, name) in [
        (MAY_BE_ARRAY, "array"),
        (MAY_BE_STRING, "string"),
        (MAY_BE_LONG, "int"),
        (MAY_BE_DOUBLE, "float"),
        (MAY_BE_BOOL, "bool"),
    ] {
        if types & bit == bit {
            names.push(name);
        }
    }
    let joined = names.join("|");
    if types & MAY_BE_NULL != 0 {
        if names.len() == 1 {
            format!("?{joined}")
        } else {
            format!("{joined}|null")
        }
    } else {
        joined
    }
}

/// Converts a null for a non-nullable scalar parameter the way internal
/// functions do in weak mode: PHP 8.1's deprecation, then the zero value.
///
/// # Safety
/// `arg` is an argument slot of the current call.
unsafe fn null_to_scalar(info: &zend_internal_arg_info, num: u32, types: u32, arg: *mut zval) {
    // SAFETY: per the contract; the name is a static C string.
    let pname = unsafe { CStr::from_ptr(info.name).to_string_lossy() };
    // `php_error` prefixes the running function's name (`Class::method(): `).
    ext_php_rs::error::php_error(
        &ErrorType::Deprecated,
        &format!(
            "Passing null to parameter #{num} (${pname}) of type {} is deprecated",
            type_name(types)
        ),
    );
    // SAFETY: a null owns nothing, so overwriting it leaks nothing.
    let z = unsafe { &mut *arg.cast::<ext_php_rs::types::Zval>() };
    if types & MAY_BE_BOOL != 0 {
        z.set_bool(false);
    } else if types & MAY_BE_LONG != 0 {
        z.set_long(0);
    } else if types & MAY_BE_DOUBLE != 0 {
        z.set_double(0.0);
    } else {
        let _ = z.set_string("", false);
    }
}

/// Whether the caller of the current internal call was compiled with
/// `declare(strict_types=1)` (`ZEND_ARG_USES_STRICT_TYPES()`).
///
/// # Safety
/// `ex` is the current internal call frame.
unsafe fn caller_is_strict(ex: *const zend_execute_data) -> bool {
    // SAFETY: per the contract; frames and their functions outlive the call.
    unsafe {
        let prev = (*ex).prev_execute_data;
        !prev.is_null()
            && !(*prev).func.is_null()
            && (*(*prev).func).common.fn_flags & ZEND_ACC_STRICT_TYPES != 0
    }
}

// may_bail: yes, it runs the original PHP function (which may raise a fatal error).
crate::php::ffi::php_fn!(throw unsafe fn trampoline(ex: *mut zend_execute_data, rv: *mut zval) => trampoline_body);
/// Coerces the arguments, then runs the original handler.
///
/// # Safety
/// Called by the engine as a `zif_handler` of a function `install()` wrapped.
unsafe fn trampoline_body(ex: *mut zend_execute_data, rv: *mut zval) {
    // SAFETY: the engine passes the live frame of this call; the frame's
    // argument slots follow it (`ZEND_CALL_ARG`); `install()` stored the
    // original handler in our reserved slot before setting this one.
    unsafe {
        let func = (*ex).func;
        let ifn = &(*func).internal_function;
        let slot = SLOT.load(std::sync::atomic::Ordering::Relaxed);
        let Some(&orig) = ifn.reserved.get(slot) else {
            return;
        };
        if orig.is_null() {
            return;
        }
        let orig: Handler = std::mem::transmute::<*mut std::ffi::c_void, Handler>(orig);
        let given = (*ex).This.u2.num_args.min(ifn.num_args);
        let first = ex.cast::<zval>().add(frame_slot());
        let infos = super::arginfo::checking_arg_info(ifn);
        let mut strict = None;
        for i in 0..given {
            let arg = first.add(i as usize);
            let ty = (*arg).u1.type_info & 0xff;
            let info = &*infos.add(i as usize);
            let Some(types) = checked_mask(info) else {
                continue;
            };
            if ty == IS_UNDEF || types & (1 << ty) != 0 {
                continue;
            }
            let strict = *strict.get_or_insert_with(|| caller_is_strict(ex));
            let ok = if types & HANDLED & !MAY_BE_NULL == 0 {
                false // array only: nothing converts to an array
            } else if ty == IS_NULL {
                if strict {
                    false
                } else {
                    null_to_scalar(info, i + 1, types, arg);
                    true
                }
            } else {
                zend_verify_scalar_type_hint(types, arg, strict, true)
            };
            if !ext_php_rs::zend::ExecutorGlobals::get().exception.is_null() {
                return; // a deprecation turned into an exception by a handler
            }
            if !ok {
                let msg = CString::new(format!(
                    "must be of type {}, {} given",
                    type_name(types),
                    CStr::from_ptr(zend_zval_type_name(arg)).to_string_lossy()
                ))
                .unwrap_or_default();
                zend_argument_type_error(i + 1, c"%s".as_ptr(), msg.as_ptr());
                return;
            }
        }
        orig(ex, rv);
        let pending = !ext_php_rs::zend::ExecutorGlobals::get().exception.is_null();
        if pending {
            constructor_not_called();
        }
    }
}

/// ext-php-rs's message for a method called on an object whose Rust state
/// was never built (a subclass constructor that skipped `parent::__construct()`).
const NO_THIS: &str = "Failed to retrieve reference to `$this`";

/// Replaces ext-php-rs's plain `Exception` for an object whose constructor
/// never ran with Swoole's `Swoole\Error: must call constructor first`.
fn constructor_not_called() {
    let plain = {
        // The read guard must be gone before take_exception() writes.
        let eg = ext_php_rs::zend::ExecutorGlobals::get();
        // SAFETY: a non-null EG(exception) is a live object.
        unsafe { eg.exception.as_ref() }
            .is_some_and(|e| e.get_class_name().is_ok_and(|n| n == "Exception"))
    };
    if !plain {
        return;
    }
    // getMessage() cannot run while the exception is pending: take it out,
    // look, and put it back unless it is ext-php-rs's.
    let Some(ex) = ext_php_rs::zend::ExecutorGlobals::take_exception() else {
        return;
    };
    let ours = ex
        .try_call_method("getMessage", vec![])
        .ok()
        .and_then(|m| m.string())
        .is_some_and(|m| m == NO_THIS);
    if !ours {
        let mut ex = ex;
        let mut z = ext_php_rs::types::Zval::new();
        z.set_object(&mut ex); // the zval's own reference goes to the engine
        drop(ex);
        let _ = ext_php_rs::exception::throw_object(z);
        return;
    }
    drop(ex);
    ext_php_rs::exception::PhpException::new(
        "must call constructor first".into(),
        0,
        super::exception::error_ce(),
    )
    .throw();
}

/// `ZEND_CALL_FRAME_SLOT`: the zval index of the first argument of a call
/// frame.
const fn frame_slot() -> usize {
    let zv = std::mem::size_of::<zval>();
    std::mem::size_of::<zend_execute_data>().div_ceil(zv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_match_the_engine() {
        assert_eq!(type_name(MAY_BE_LONG), "int");
        assert_eq!(type_name(MAY_BE_LONG | MAY_BE_NULL), "?int");
        assert_eq!(type_name(MAY_BE_BOOL), "bool");
        assert_eq!(type_name(MAY_BE_STRING | MAY_BE_ARRAY), "array|string");
        assert_eq!(frame_slot(), 5);
    }
}
