//! `Swoole\Exception` (extends `\Exception`) and `Swoole\Error` (extends `\Error`).
//!
//! Registered as plain internal subclasses (see `mod.rs`), so they keep
//! PHP's own constructors: `new Swoole\Exception('msg', 5)` works.

use std::sync::OnceLock;

use ext_php_rs::exception::PhpException;
use ext_php_rs::zend::{ce, ClassEntry};

use super::CeRef;

static EXCEPTION: OnceLock<CeRef> = OnceLock::new();
static ERROR: OnceLock<CeRef> = OnceLock::new();

pub fn exception_ce() -> &'static ClassEntry {
    EXCEPTION.get().map_or_else(ce::exception, |c| c.0)
}

pub fn error_ce() -> &'static ClassEntry {
    ERROR.get().map_or_else(ce::error, |c| c.0)
}

/// Registers both classes; called from module startup.
pub fn register_classes() -> ext_php_rs::error::Result<()> {
    let e = super::internal_subclass("Swoole\\Exception", (ce::exception, "Exception"))?;
    let _ = EXCEPTION.set(CeRef(e));
    let e = super::internal_subclass("Swoole\\Error", (ce::error, "Error"))?;
    let _ = ERROR.set(CeRef(e));
    Ok(())
}

/// A `Swoole\Exception` with Swoole's message and code.
pub fn swoole_exception(msg: impl Into<String>, code: i32) -> PhpException {
    PhpException::new(msg.into(), code, exception_ce())
}

/// A `TypeError`, for arguments and settings of the wrong type.
pub fn type_error(msg: impl Into<String>) -> PhpException {
    PhpException::new(msg.into(), 0, ce::type_error())
}
