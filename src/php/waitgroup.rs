//! `Swoole\Coroutine\WaitGroup`: waits until a counter of outstanding work
//! reaches zero; waiting is the coro layer's, by cid.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use ext_php_rs::exception::PhpResult;
use ext_php_rs::prelude::*;

use super::exception::error_ce;
use crate::coro::{self, Cid, WaitKind, Wake};

fn timeout_of(t: Option<f64>) -> Option<Duration> {
    t.filter(|t| *t > 0.0 && t.is_finite())
        .map(Duration::from_secs_f64)
}

#[php_class]
#[php(name = "Swoole\\Coroutine\\WaitGroup")]
pub struct WaitGroup {
    count: Cell<i64>,
    waiters: RefCell<Vec<Cid>>,
}

#[php_impl]
impl WaitGroup {
    pub fn __construct(delta: Option<i64>) -> Self {
        WaitGroup {
            count: Cell::new(delta.unwrap_or(0).max(0)),
            waiters: RefCell::new(Vec::new()),
        }
    }

    pub fn add(&self, delta: Option<i64>) -> PhpResult<()> {
        let n = self.count.get() + delta.unwrap_or(1);
        if n < 0 {
            return Err(PhpException::new(
                "WaitGroup misuse: negative counter".into(),
                0,
                error_ce(),
            ));
        }
        self.count.set(n);
        if n == 0 {
            self.release();
        }
        Ok(())
    }

    pub fn done(&self) -> PhpResult<()> {
        self.add(Some(-1))
    }

    pub fn count(&self) -> i64 {
        self.count.get()
    }

    /// Waits until the counter is zero; false on timeout.
    pub fn wait(&self, timeout: Option<f64>) -> PhpResult<bool> {
        let me = coro::current();
        if me < 0 {
            return Err(PhpException::new(
                "Swoole\\Coroutine\\WaitGroup::wait(): API must be called in the coroutine".into(),
                0,
                error_ce(),
            ));
        }
        if self.count.get() == 0 {
            return Ok(true);
        }
        self.waiters.borrow_mut().push(me);
        let wake = coro::wait(WaitKind::Channel, timeout_of(timeout));
        self.waiters.borrow_mut().retain(|c| *c != me);
        match wake {
            Ok(Wake::Resumed) => Ok(self.count.get() == 0),
            Ok(Wake::Timeout) => Ok(false),
            Err(_) => Ok(false),
        }
    }
}

impl WaitGroup {
    fn release(&self) {
        let waiters: Vec<Cid> = self.waiters.borrow_mut().drain(..).collect();
        for cid in waiters {
            coro::resume_kind(cid, WaitKind::Channel, Wake::Resumed);
        }
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<WaitGroup>()
}
