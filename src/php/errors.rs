//! `swoole_last_error()` and the `SWOOLE_ERROR_*` codes it returns.

use std::cell::Cell;

use ext_php_rs::prelude::*;

pub const SWOOLE_ERROR_INVALID_PARAMS: i64 = 505;
pub const SWOOLE_ERROR_CO_OUT_OF_COROUTINE: i64 = 10001;
pub const SWOOLE_ERROR_CO_HAS_BEEN_BOUND: i64 = 10002;
pub const SWOOLE_ERROR_CO_NOT_EXISTS: i64 = 10016;
pub const SWOOLE_ERROR_CO_TIMEDOUT: i64 = 10018;
pub const SWOOLE_ERROR_HTTP_CONTEXT_UNAVAILABLE: i64 = 7106;

thread_local! {
    static LAST: Cell<i64> = const { Cell::new(0) };
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
