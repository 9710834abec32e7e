//! `exit()` inside a coroutine or a server process: instead of ending the
//! process it throws a catchable `Swoole\ExitException` (`getStatus()`,
//! `getFlags()` with `SWOOLE_EXIT_IN_COROUTINE` / `SWOOLE_EXIT_IN_SERVER`),
//! as Swoole does on PHP < 8.4.
//!
//! PHP 8.2 compiles `exit` to the `ZEND_EXIT` opcode, so a user opcode
//! handler sees it first. Outside a coroutine and a server it lets PHP
//! handle the opcode as usual. Inside, it throws the exception: throwing
//! moves the frame's opline to PHP's exception handler, so dispatching
//! afterwards runs that handler and never `ZEND_EXIT` itself.

use std::sync::OnceLock;

use ext_php_rs::builders::{FunctionBuilder, ModuleBuilder};
use ext_php_rs::ffi;
use ext_php_rs::flags::{DataType, MethodFlags};
use ext_php_rs::types::Zval;
use ext_php_rs::zend::{ClassEntry, ExecuteData};

use super::CeRef;
use crate::coro;
use crate::engine::worker;

/// Swoole's `sw_exit_flags`.
pub const SWOOLE_EXIT_IN_COROUTINE: i64 = 1 << 1;
pub const SWOOLE_EXIT_IN_SERVER: i64 = 1 << 2;

/// `ZEND_EXIT` in PHP 8.2's opcode table.
const ZEND_EXIT: u8 = 79;
/// `ZEND_USER_OPCODE_DISPATCH`: run the opcode at the (possibly moved) opline.
const ZEND_USER_OPCODE_DISPATCH: i32 = 2;
const IS_UNUSED: u8 = 0;
const IS_CONST: u8 = 1;
const IS_REFERENCE: u8 = 10;

type OpcodeHandler = Option<unsafe extern "C" fn(*mut ffi::zend_execute_data) -> i32>;

extern "C" {
    // ZEND_API zend_result zend_set_user_opcode_handler(uint8_t opcode, user_opcode_handler_t handler);
    fn zend_set_user_opcode_handler(opcode: u8, handler: OpcodeHandler) -> i32;
    // ZEND_API user_opcode_handler_t zend_get_user_opcode_handler(uint8_t opcode);
    fn zend_get_user_opcode_handler(opcode: u8) -> OpcodeHandler;
    // ZEND_API ZEND_COLD zend_object *zend_throw_exception(zend_class_entry *ce, const char *message, zend_long code);
    fn zend_throw_exception(
        ce: *mut ffi::zend_class_entry,
        message: *const std::ffi::c_char,
        code: i64,
    ) -> *mut ffi::zend_object;
    // ZEND_API void zend_update_property(zend_class_entry *scope, zend_object *object, const char *name, size_t name_length, zval *value);
    fn zend_update_property(
        scope: *mut ffi::zend_class_entry,
        object: *mut ffi::zend_object,
        name: *const std::ffi::c_char,
        len: usize,
        value: *mut ffi::zval,
    );
    // ZEND_API zval *zend_read_property(zend_class_entry *scope, zend_object *object, const char *name, size_t name_length, bool silent, zval *rv);
    fn zend_read_property(
        scope: *mut ffi::zend_class_entry,
        object: *mut ffi::zend_object,
        name: *const std::ffi::c_char,
        len: usize,
        silent: bool,
        rv: *mut ffi::zval,
    ) -> *mut ffi::zval;
    // ZEND_API void zend_declare_property_long(zend_class_entry *ce, const char *name, size_t name_length, zend_long value, int access_type);
    fn zend_declare_property_long(
        ce: *mut ffi::zend_class_entry,
        name: *const std::ffi::c_char,
        len: usize,
        value: i64,
        access: i32,
    );
}

const ZEND_ACC_PRIVATE: i32 = 1 << 2;

static EXIT_CE: OnceLock<CeRef> = OnceLock::new();
/// The handler another extension had installed for `ZEND_EXIT`, if any.
static PREVIOUS: OnceLock<usize> = OnceLock::new();

/// `Swoole\ExitException`, once registered.
pub fn exit_exception_ce() -> Option<&'static ClassEntry> {
    EXIT_CE.get().map(|c| c.0)
}

/// True when `obj` is a `Swoole\ExitException`.
pub fn is_exit_exception(obj: &ext_php_rs::types::ZendObject) -> bool {
    exit_exception_ce().is_some_and(|ce| obj.instance_of(ce))
}

/// Registers `Swoole\ExitException` (after `Swoole\Exception`) and the
/// opcode handler; called once from module startup.
pub fn register_classes() -> ext_php_rs::error::Result<()> {
    let get_flags =
        FunctionBuilder::new("getFlags", get_flags).returns(DataType::Long, false, false);
    let get_status =
        FunctionBuilder::new("getStatus", get_status).returns(DataType::Mixed, false, true);
    let ce = super::internal_subclass_with(
        "Swoole\\ExitException",
        (super::exception::exception_ce, "Swoole\\Exception"),
        vec![
            (get_flags, MethodFlags::Public),
            (get_status, MethodFlags::Public),
        ],
    )?;
    let raw = std::ptr::from_ref(ce).cast_mut();
    // SAFETY: module startup, single-threaded; `raw` is the class entry PHP
    // just registered, and the names are valid for their lengths.
    unsafe {
        zend_declare_property_long(raw, c"flags".as_ptr(), 5, 0, ZEND_ACC_PRIVATE);
        zend_declare_property_long(raw, c"status".as_ptr(), 6, 0, ZEND_ACC_PRIVATE);
    }
    let _ = EXIT_CE.set(CeRef(ce));
    // SAFETY: module startup; the handler table is PHP's global, written
    // only now.
    unsafe {
        let prev = zend_get_user_opcode_handler(ZEND_EXIT);
        let _ = PREVIOUS.set(prev.map_or(0, |f| f as usize));
        zend_set_user_opcode_handler(ZEND_EXIT, Some(exit_handler));
    }
    Ok(())
}

/// The `SWOOLE_EXIT_*` constants.
pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module
        .constant(("SWOOLE_EXIT_IN_COROUTINE", SWOOLE_EXIT_IN_COROUTINE, &[]))
        .constant(("SWOOLE_EXIT_IN_SERVER", SWOOLE_EXIT_IN_SERVER, &[]))
}

/// Where `exit` is being called from, as Swoole's flags.
fn exit_flags() -> i64 {
    let mut flags = 0;
    if coro::current() > 0 {
        flags |= SWOOLE_EXIT_IN_COROUTINE;
    }
    if worker::current_worker_id() >= 0 {
        flags |= SWOOLE_EXIT_IN_SERVER;
    }
    flags
}

// may_bail: no (it only throws); after a panic PHP's own exit runs.
crate::php::ffi::php_fn!(log unsafe fn exit_handler(ex: *mut ffi::zend_execute_data) -> i32 => exit_handler_body ?= ZEND_USER_OPCODE_DISPATCH);
unsafe fn exit_handler_body(ex: *mut ffi::zend_execute_data) -> i32 {
    let flags = exit_flags();
    let ce = exit_exception_ce();
    let (Some(ce), true) = (ce, flags != 0) else {
        return match PREVIOUS.get().copied().filter(|p| *p != 0) {
            // SAFETY: the value was a valid handler pointer when saved.
            Some(p) => unsafe {
                let f: unsafe extern "C" fn(*mut ffi::zend_execute_data) -> i32 =
                    std::mem::transmute(p);
                f(ex)
            },
            None => ZEND_USER_OPCODE_DISPATCH,
        };
    };
    // SAFETY: PHP calls this for a ZEND_EXIT opline of the running frame
    // `ex`: op1 is unused, a literal (relative to the opline, as on every
    // 64-bit build) or a slot of the frame (a byte offset from `ex`).
    unsafe {
        let opline = (*ex).opline;
        let mut null = Zval::new();
        let status: *mut ffi::zval = match (*opline).op1_type {
            IS_UNUSED => &raw mut null,
            IS_CONST => opline
                .cast::<u8>()
                .offset((*opline).op1.constant as i32 as isize)
                .cast_mut()
                .cast(),
            _ => ex
                .cast::<u8>()
                .offset((*opline).op1.var as i32 as isize)
                .cast(),
        };
        let mut status = status;
        if ((*status).u1.type_info & 0xff) as u8 == IS_REFERENCE {
            status = &raw mut (*(*status).value.ref_).val;
        }
        let ce_raw = std::ptr::from_ref(ce).cast_mut();
        let obj = zend_throw_exception(ce_raw, c"swoole exit".as_ptr(), 0);
        if !obj.is_null() {
            let mut f = Zval::new();
            f.set_long(flags);
            zend_update_property(ce_raw, obj, c"flags".as_ptr(), 5, &raw mut f);
            zend_update_property(ce_raw, obj, c"status".as_ptr(), 6, status);
        }
    }
    ZEND_USER_OPCODE_DISPATCH
}

/// Reads private property `name` of `$this` into `retval`.
fn read_own(ex: &mut ExecuteData, retval: &mut Zval, name: &std::ffi::CStr) {
    let (Some(ce), Some(this)) = (exit_exception_ce(), ex.get_self()) else {
        return;
    };
    let mut rv = Zval::new();
    // SAFETY: `this` is a live ExitException; the scope is its class, so
    // the private property is readable; the result is copied out.
    unsafe {
        let p = zend_read_property(
            std::ptr::from_ref(ce).cast_mut(),
            std::ptr::from_mut(this).cast(),
            name.as_ptr(),
            name.to_bytes().len(),
            true,
            &raw mut rv,
        );
        if let Some(v) = p.cast::<Zval>().as_ref() {
            *retval = v.shallow_clone();
        }
    }
}

// may_bail: no.
crate::php::ffi::php_fn!(throw fn get_flags(ex: &mut ExecuteData, retval: &mut Zval) => get_flags_body);
fn get_flags_body(ex: &mut ExecuteData, retval: &mut Zval) {
    if ex.parser().parse().is_err() {
        return;
    }
    read_own(ex, retval, c"flags");
}

// may_bail: no.
crate::php::ffi::php_fn!(throw fn get_status(ex: &mut ExecuteData, retval: &mut Zval) => get_status_body);
fn get_status_body(ex: &mut ExecuteData, retval: &mut Zval) {
    if ex.parser().parse().is_err() {
        return;
    }
    read_own(ex, retval, c"status");
}
