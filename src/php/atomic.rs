//! `Swoole\Atomic` (unsigned 32-bit, with futex `wait`/`wakeup`) and
//! `Swoole\Atomic\Long` (signed 64-bit): counters in shared memory. Each
//! object maps its own shared page at construction, so processes forked
//! afterwards share the counter; freeing the object unmaps this process's view.

use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use std::time::Duration;

use ext_php_rs::exception::PhpResult;
use ext_php_rs::prelude::*;

use super::exception::swoole_exception;
use crate::engine::shm_lock::{atomic_wait, atomic_wakeup, ShmMap};

fn page() -> PhpResult<ShmMap> {
    ShmMap::new(4096).map_err(|_| swoole_exception("global memory allocation failure", 503))
}

#[php_class]
#[php(name = "Swoole\\Atomic")]
pub struct Atomic {
    map: ShmMap,
}

impl Atomic {
    fn cell(&self) -> &AtomicU32 {
        // SAFETY: the page is aligned, zero-initialized, ours for the object's
        // lifetime, and only ever accessed as this one atomic.
        unsafe { &*self.map.as_ptr().cast::<AtomicU32>() }
    }
}

#[php_impl]
impl Atomic {
    #[php(defaults(value = 0))]
    pub fn __construct(value: i64) -> PhpResult<Self> {
        let a = Atomic { map: page()? };
        a.cell().store(value as u32, Ordering::SeqCst);
        Ok(a)
    }

    #[php(defaults(add_value = 1))]
    pub fn add(&self, add_value: i64) -> i64 {
        let d = add_value as u32;
        i64::from(self.cell().fetch_add(d, Ordering::SeqCst).wrapping_add(d))
    }

    #[php(defaults(sub_value = 1))]
    pub fn sub(&self, sub_value: i64) -> i64 {
        let d = sub_value as u32;
        i64::from(self.cell().fetch_sub(d, Ordering::SeqCst).wrapping_sub(d))
    }

    pub fn get(&self) -> i64 {
        i64::from(self.cell().load(Ordering::SeqCst))
    }

    pub fn set(&self, value: i64) {
        self.cell().store(value as u32, Ordering::SeqCst);
    }

    pub fn cmpset(&self, cmp_value: i64, new_value: i64) -> bool {
        self.cell()
            .compare_exchange(
                cmp_value as u32,
                new_value as u32,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
    }

    /// Waits for a `wakeup()` (value 1, consumed to 0) while the value is 0;
    /// `$timeout` seconds, or forever when not greater than 0.
    #[php(defaults(timeout = 1.0))]
    pub fn wait(&self, timeout: f64) -> bool {
        let t = (timeout > 0.0 && timeout.is_finite()).then(|| Duration::from_secs_f64(timeout));
        atomic_wait(self.cell(), t)
    }

    #[php(defaults(count = 1))]
    pub fn wakeup(&self, count: i64) -> bool {
        atomic_wakeup(self.cell(), count.clamp(1, i64::from(i32::MAX)) as i32)
    }
}

#[php_class]
#[php(name = "Swoole\\Atomic\\Long")]
pub struct AtomicLong {
    map: ShmMap,
}

impl AtomicLong {
    fn cell(&self) -> &AtomicI64 {
        // SAFETY: as for `Atomic::cell`; the page is 8-aligned.
        unsafe { &*self.map.as_ptr().cast::<AtomicI64>() }
    }
}

#[php_impl]
impl AtomicLong {
    #[php(defaults(value = 0))]
    pub fn __construct(value: i64) -> PhpResult<Self> {
        let a = AtomicLong { map: page()? };
        a.cell().store(value, Ordering::SeqCst);
        Ok(a)
    }

    #[php(defaults(add_value = 1))]
    pub fn add(&self, add_value: i64) -> i64 {
        self.cell()
            .fetch_add(add_value, Ordering::SeqCst)
            .wrapping_add(add_value)
    }

    #[php(defaults(sub_value = 1))]
    pub fn sub(&self, sub_value: i64) -> i64 {
        self.cell()
            .fetch_sub(sub_value, Ordering::SeqCst)
            .wrapping_sub(sub_value)
    }

    pub fn get(&self) -> i64 {
        self.cell().load(Ordering::SeqCst)
    }

    pub fn set(&self, value: i64) {
        self.cell().store(value, Ordering::SeqCst);
    }

    pub fn cmpset(&self, cmp_value: i64, new_value: i64) -> bool {
        self.cell()
            .compare_exchange(cmp_value, new_value, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Atomic>().class::<AtomicLong>()
}
