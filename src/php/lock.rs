//! `Swoole\Lock` (Swoole 6.2.2's API: `lock($operation, $timeout)`,
//! `unlock()`, `$errCode`) and the `SWOOLE_MUTEX` / `SWOOLE_RWLOCK` /
//! `SWOOLE_SPINLOCK` constants, over `engine::shared::shm_lock`. The lock lives in a
//! shared page mapped at construction, so processes forked afterwards share
//! it. A mutex whose holder dies is taken over by the next waiter.

use std::cell::Cell;
use std::time::Duration;

use ext_php_rs::exception::PhpResult;
use ext_php_rs::prelude::*;

use super::exception::swoole_exception;
use crate::engine::shared::shm_lock::{LockKind, ShmLock};

pub const SWOOLE_RWLOCK: i64 = LockKind::RwLock as i64;
pub const SWOOLE_MUTEX: i64 = LockKind::Mutex as i64;
pub const SWOOLE_SPINLOCK: i64 = LockKind::Spin as i64;

// flock()'s operation bits, as PHP defines LOCK_SH/LOCK_EX/LOCK_NB.
const LOCK_SH: i64 = 1;
const LOCK_NB: i64 = 4;

#[php_class]
#[php(name = "Swoole\\Lock")]
pub struct Lock {
    inner: ShmLock,
    err_code: Cell<i64>,
}

impl Lock {
    fn result(&self, r: Result<(), i32>) -> bool {
        match r {
            Ok(()) => true,
            Err(e) => {
                self.err_code.set(i64::from(e));
                false
            }
        }
    }
}

#[php_impl]
impl Lock {
    pub const MUTEX: i64 = SWOOLE_MUTEX;
    pub const RWLOCK: i64 = SWOOLE_RWLOCK;
    pub const SPINLOCK: i64 = SWOOLE_SPINLOCK;

    #[php(defaults(r#type = 3))]
    pub fn __construct(r#type: i64) -> PhpResult<Self> {
        let kind = LockKind::from_i64(r#type).ok_or_else(|| {
            swoole_exception(
                format!("lock type[{type}] is not support", type = r#type),
                0,
            )
        })?;
        let inner = ShmLock::new(kind)
            .map_err(|_| swoole_exception("global memory allocation failure", 503))?;
        Ok(Lock {
            inner,
            err_code: Cell::new(0),
        })
    }

    #[php(getter, name = "errCode")]
    pub fn prop_err_code(&self) -> i64 {
        self.err_code.get()
    }

    #[php(setter, name = "errCode")]
    pub fn set_err_code(&self, code: i64) {
        self.err_code.set(code);
    }

    /// `LOCK_EX` (default) or `LOCK_SH` (read-write locks), `| LOCK_NB` to
    /// not wait; `$timeout` seconds (whole milliseconds, as Swoole), not
    /// greater than 0: wait as long as it takes.
    #[php(defaults(operation = 2, timeout = -1.0))]
    pub fn lock(&self, operation: i64, timeout: f64) -> bool {
        let ms = (timeout * 1000.0) as i64;
        let t = (ms > 0).then(|| Duration::from_millis(ms as u64));
        let shared = operation & LOCK_SH != 0 && self.inner.kind() == LockKind::RwLock;
        let r = self.inner.lock(shared, operation & LOCK_NB != 0, t);
        self.result(r)
    }

    pub fn unlock(&self) -> bool {
        let r = self.inner.unlock();
        self.result(r)
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module
        .class::<Lock>()
        .constant(("SWOOLE_MUTEX", SWOOLE_MUTEX, &[]))
        .constant(("SWOOLE_RWLOCK", SWOOLE_RWLOCK, &[]))
        .constant(("SWOOLE_SPINLOCK", SWOOLE_SPINLOCK, &[]))
}
