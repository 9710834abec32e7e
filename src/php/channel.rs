//! `Swoole\Coroutine\Channel` (alias `Chan`): a bounded queue between
//! coroutines. Values stay PHP values here; waiting and waking is the coro
//! layer's, by cid. A push to a waiting consumer resumes it at once, as
//! Swoole does.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::time::Duration;

use ext_php_rs::exception::PhpResult;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

use crate::coro::{self, Cid, WaitKind, Wake};

pub const SWOOLE_CHANNEL_OK: i64 = 0;
pub const SWOOLE_CHANNEL_TIMEOUT: i64 = -1;
pub const SWOOLE_CHANNEL_CLOSED: i64 = -2;
pub const SWOOLE_CHANNEL_CANCELED: i64 = -3;

#[php_class]
#[php(name = "Swoole\\Coroutine\\Channel")]
pub struct Channel {
    capacity: i64,
    err_code: Cell<i64>,
    queue: RefCell<VecDeque<Zval>>,
    consumers: RefCell<VecDeque<Cid>>,
    producers: RefCell<VecDeque<Cid>>,
    closed: Cell<bool>,
}

/// `SW_ERROR_CO_HAS_BEEN_DISCARDED`.
const ERR_CO_HAS_BEEN_DISCARDED: i64 = 10003;

impl Drop for Channel {
    /// A channel freed while coroutines still wait on it (request shutdown
    /// unwinding a deadlocked coroutine): Swoole's warning for each side.
    fn drop(&mut self) {
        for (list, who) in [
            (&self.producers, "producers"),
            (&self.consumers, "consumers"),
        ] {
            let n = list.borrow().len();
            if n > 0 {
                crate::rlog!(
                    Warning,
                    "Channel::~Channel() (ERRNO {ERR_CO_HAS_BEEN_DISCARDED}): channel is destroyed, {n} {who} will be discarded"
                );
            }
        }
    }
}

/// Swoole waits without a limit for any timeout that is not above 0.
fn timeout_of(t: Option<f64>) -> Option<Duration> {
    t.filter(|t| *t > 0.0 && t.is_finite())
        .map(Duration::from_secs_f64)
}

impl Channel {
    /// Waits in `list` until woken or timed out; removes us from the list.
    fn wait_in(&self, list: &RefCell<VecDeque<Cid>>, timeout: Option<f64>) -> PhpResult<Wake> {
        let me = super::errors::need_coroutine()?;
        list.borrow_mut().push_back(me);
        // As Swoole: only a timeout above 0 sets a limit (0 waits too).
        let wake = coro::wait(WaitKind::Channel, timeout_of(timeout))
            .map_err(|_| super::errors::out_of_coroutine())?;
        if wake == Wake::Timeout {
            // A timeout or a cancel: still listed. (Whoever resumes a
            // channel wait normally, `wake_one` or `close`, took us off.)
            list.borrow_mut().retain(|c| *c != me);
        }
        Ok(wake)
    }

    fn wake_one(list: &RefCell<VecDeque<Cid>>) {
        let next = list.borrow_mut().pop_front();
        if let Some(cid) = next {
            coro::resume_kind(cid, WaitKind::Channel, Wake::Resumed);
        }
    }
}

#[php_impl]
impl Channel {
    pub fn __construct(capacity: Option<i64>) -> Self {
        Channel {
            capacity: capacity.unwrap_or(1).max(1),
            err_code: Cell::new(SWOOLE_CHANNEL_OK),
            queue: RefCell::new(VecDeque::new()),
            consumers: RefCell::new(VecDeque::new()),
            producers: RefCell::new(VecDeque::new()),
            closed: Cell::new(false),
        }
    }

    #[php(getter, name = "capacity")]
    pub fn prop_capacity(&self) -> i64 {
        self.capacity
    }

    #[php(getter, name = "errCode")]
    pub fn prop_err_code(&self) -> i64 {
        self.err_code.get()
    }

    #[php(setter, name = "errCode")]
    pub fn set_err_code(&self, code: i64) {
        self.err_code.set(code);
    }

    /// Adds `$data`; waits while the channel is full (up to `$timeout` s).
    pub fn push(&self, data: &Zval, timeout: Option<f64>) -> PhpResult<bool> {
        if self.closed.get() {
            self.err_code.set(SWOOLE_CHANNEL_CLOSED);
            return Ok(false);
        }
        while self.queue.borrow().len() as i64 >= self.capacity {
            let wake = self.wait_in(&self.producers, timeout)?;
            if self.closed.get() {
                self.err_code.set(SWOOLE_CHANNEL_CLOSED);
                return Ok(false);
            }
            if wake == Wake::Timeout && self.queue.borrow().len() as i64 >= self.capacity {
                self.err_code.set(if coro::is_canceled() {
                    SWOOLE_CHANNEL_CANCELED
                } else {
                    SWOOLE_CHANNEL_TIMEOUT
                });
                return Ok(false);
            }
        }
        self.queue.borrow_mut().push_back(data.shallow_clone());
        self.err_code.set(SWOOLE_CHANNEL_OK);
        Self::wake_one(&self.consumers);
        Ok(true)
    }

    /// Takes the oldest value; waits while empty (up to `$timeout` s).
    /// False on timeout or when closed (see `errCode`).
    pub fn pop(&self, timeout: Option<f64>) -> PhpResult<Zval> {
        loop {
            let item = self.queue.borrow_mut().pop_front();
            if let Some(v) = item {
                self.err_code.set(SWOOLE_CHANNEL_OK);
                Self::wake_one(&self.producers);
                return Ok(v);
            }
            let mut f = Zval::new();
            f.set_bool(false);
            if self.closed.get() {
                self.err_code.set(SWOOLE_CHANNEL_CLOSED);
                return Ok(f);
            }
            let wake = self.wait_in(&self.consumers, timeout)?;
            if wake == Wake::Timeout && self.queue.borrow().is_empty() {
                self.err_code.set(if self.closed.get() {
                    SWOOLE_CHANNEL_CLOSED
                } else if coro::is_canceled() {
                    SWOOLE_CHANNEL_CANCELED
                } else {
                    SWOOLE_CHANNEL_TIMEOUT
                });
                return Ok(f);
            }
        }
    }

    /// Closes the channel and wakes every waiting producer and consumer.
    pub fn close(&self) -> bool {
        if self.closed.replace(true) {
            return false;
        }
        let waiting: Vec<Cid> = self
            .consumers
            .borrow_mut()
            .drain(..)
            .chain(self.producers.borrow_mut().drain(..))
            .collect();
        for cid in waiting {
            coro::resume_kind(cid, WaitKind::Channel, Wake::Resumed);
        }
        true
    }

    pub fn length(&self) -> i64 {
        self.queue.borrow().len() as i64
    }

    pub fn is_empty(&self) -> bool {
        self.queue.borrow().is_empty()
    }

    pub fn is_full(&self) -> bool {
        self.queue.borrow().len() as i64 >= self.capacity
    }

    pub fn stats(&self) -> Zval {
        let mut ht = ZendHashTable::new();
        let _ = ht.insert("consumer_num", self.consumers.borrow().len() as i64);
        let _ = ht.insert("producer_num", self.producers.borrow().len() as i64);
        let _ = ht.insert("queue_num", self.queue.borrow().len() as i64);
        let mut z = Zval::new();
        z.set_hashtable(ht);
        z
    }
}

// Fast paths (see `table::install_fast`): `push($data[, $timeout])` and
// `pop([$timeout])` with a numeric timeout read their arguments straight
// from the frame; anything else (a string timeout to coerce, a subclass
// that skipped the constructor) goes to the generated handler.

/// The optional timeout argument `n`: `Some(None)` when not passed.
fn timeout_arg(ex: &ext_php_rs::zend::ExecuteData, n: u32) -> Option<Option<f64>> {
    use super::table::{arg, argc};
    if argc(ex) > n + 1 {
        return None;
    }
    match arg(ex, n) {
        None => Some(None),
        Some(z) => z.double().or_else(|| z.long().map(|l| l as f64)).map(Some),
    }
}

fn push_fast(ex: &mut ext_php_rs::zend::ExecuteData, ret: &mut Zval) -> bool {
    let Some(data) = super::table::arg(ex, 0) else {
        return false;
    };
    let Some(timeout) = timeout_arg(ex, 1) else {
        return false;
    };
    let Some(this) = super::table::this_of::<Channel>(ex) else {
        return false;
    };
    match this.push(data, timeout) {
        Ok(b) => super::table::ret_bool(ret, b),
        Err(e) => {
            e.throw();
        }
    }
    true
}

fn pop_fast(ex: &mut ext_php_rs::zend::ExecuteData, ret: &mut Zval) -> bool {
    let Some(timeout) = timeout_arg(ex, 0) else {
        return false;
    };
    let Some(this) = super::table::this_of::<Channel>(ex) else {
        return false;
    };
    match this.pop(timeout) {
        Ok(v) => *ret = v,
        Err(e) => {
            e.throw();
        }
    }
    true
}

crate::rsw_fast_handler!(push_handler, CHAN_PUSH, push_fast);
crate::rsw_fast_handler!(pop_handler, CHAN_POP, pop_fast);

/// Installs the fast paths (module startup, after `args::install`).
pub fn after_classes() {
    use ext_php_rs::class::RegisteredClass;
    let ce = <Channel as RegisteredClass>::get_metadata().ce();
    super::table::install_fast(ce, "push", push_handler, &CHAN_PUSH);
    super::table::install_fast(ce, "pop", pop_handler, &CHAN_POP);
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module
        .class::<Channel>()
        .constant(("SWOOLE_CHANNEL_OK", SWOOLE_CHANNEL_OK, &[]))
        .constant(("SWOOLE_CHANNEL_TIMEOUT", SWOOLE_CHANNEL_TIMEOUT, &[]))
        .constant(("SWOOLE_CHANNEL_CLOSED", SWOOLE_CHANNEL_CLOSED, &[]))
        .constant(("SWOOLE_CHANNEL_CANCELED", SWOOLE_CHANNEL_CANCELED, &[]))
}
