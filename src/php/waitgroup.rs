//! `Swoole\Coroutine\WaitGroup`: waits until a counter of outstanding work
//! reaches zero; waiting is the coro layer's, by cid.

use std::cell::Cell;
use std::time::Duration;

use ext_php_rs::exception::PhpResult;
use ext_php_rs::prelude::*;

use super::exception::error_ce;
use crate::coro::{self, Cid, WaitKind, Wake};

fn timeout_of(t: Option<f64>) -> Option<Duration> {
    t.filter(|t| *t > 0.0 && t.is_finite())
        .map(Duration::from_secs_f64)
}

/// One of PHP's SPL exceptions (`BadMethodCallException`, ...), which
/// Swoole's WaitGroup throws on misuse; `Swoole\Error` if not found.
fn spl(class: &str, msg: &str) -> PhpException {
    let ce = ext_php_rs::zend::ClassEntry::try_find(class).unwrap_or_else(error_ce);
    PhpException::new(msg.into(), 0, ce)
}

/// As Swoole's own (a PHP class in its library): one waiter at a time,
/// misuse is a `LogicException` subclass, and `wait()` with nothing
/// outstanding returns true at once, in a coroutine or not.
#[php_class]
#[php(name = "Swoole\\Coroutine\\WaitGroup")]
pub struct WaitGroup {
    count: Cell<i64>,
    /// The coroutine in `wait()`, if any.
    waiter: Cell<Option<Cid>>,
}

#[php_impl]
impl WaitGroup {
    pub fn __construct(delta: Option<i64>) -> Self {
        WaitGroup {
            count: Cell::new(delta.unwrap_or(0).max(0)),
            waiter: Cell::new(None),
        }
    }

    pub fn add(&self, delta: Option<i64>) -> PhpResult<()> {
        if self.waiter.get().is_some() {
            return Err(spl(
                "BadMethodCallException",
                "WaitGroup misuse: add called concurrently with wait",
            ));
        }
        let n = self.count.get() + delta.unwrap_or(1);
        if n < 0 {
            return Err(spl(
                "InvalidArgumentException",
                "WaitGroup misuse: negative counter",
            ));
        }
        self.count.set(n);
        Ok(())
    }

    pub fn done(&self) -> PhpResult<()> {
        let n = self.count.get() - 1;
        if n < 0 {
            return Err(spl(
                "BadMethodCallException",
                "WaitGroup misuse: negative counter",
            ));
        }
        self.count.set(n);
        if n == 0 {
            if let Some(cid) = self.waiter.get() {
                coro::resume_kind(cid, WaitKind::Channel, Wake::Resumed);
            }
        }
        Ok(())
    }

    pub fn count(&self) -> i64 {
        self.count.get()
    }

    /// Waits until the counter is zero; false on timeout.
    pub fn wait(&self, timeout: Option<f64>) -> PhpResult<bool> {
        if self.waiter.get().is_some() {
            return Err(spl(
                "BadMethodCallException",
                "WaitGroup misuse: reused before previous wait has returned",
            ));
        }
        if self.count.get() == 0 {
            return Ok(true);
        }
        let me = super::errors::need_coroutine()?;
        self.waiter.set(Some(me));
        let wake = coro::wait(WaitKind::Channel, timeout_of(timeout));
        self.waiter.set(None);
        match wake {
            Ok(Wake::Resumed) => Ok(self.count.get() == 0),
            Ok(Wake::Timeout) => Ok(false),
            Err(_) => Ok(false),
        }
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<WaitGroup>()
}
