//! `Swoole\Exception` (extends `\Exception`) and `Swoole\Error` (extends `\Error`).

use ext_php_rs::exception::PhpException;
use ext_php_rs::prelude::*;
use ext_php_rs::zend::ce;

#[php_class]
#[php(name = "Swoole\\Exception")]
#[php(extends(ce = ce::exception, stub = "\\Exception"))]
#[derive(Default)]
pub struct SwooleException;

#[php_class]
#[php(name = "Swoole\\Error")]
#[php(extends(ce = ce::error, stub = "\\Error"))]
#[derive(Default)]
pub struct SwooleError;

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<SwooleException>().class::<SwooleError>()
}

/// A `Swoole\Exception` with Swoole's message and code.
pub fn swoole_exception(msg: impl Into<String>, code: i32) -> PhpException {
    PhpException::new(msg.into(), code, SwooleException::get_metadata().ce())
}

/// A `TypeError`, for arguments and settings of the wrong type.
pub fn type_error(msg: impl Into<String>) -> PhpException {
    PhpException::new(msg.into(), 0, ce::type_error())
}

use ext_php_rs::class::RegisteredClass as _;
