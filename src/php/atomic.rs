//! `Swoole\Atomic` (unsigned 32-bit, with futex `wait`/`wakeup`) and
//! `Swoole\Atomic\Long` (signed 64-bit): counters in shared memory. Each
//! object maps its own shared page at construction, so processes forked
//! afterwards share the counter; freeing the object unmaps this process's view.

use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use std::time::Duration;

use ext_php_rs::class::RegisteredClass;
use ext_php_rs::exception::PhpResult;
use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;
use ext_php_rs::zend::ExecuteData;

use super::exception::swoole_exception;
use super::table::{arg, argc, install_fast, ret_long, this_of};
use crate::engine::shared::shm_lock::{atomic_wait, atomic_wakeup, ShmMap};

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

// Fast paths (see `table::install_fast`): the plain-int calls skip
// ext-php-rs's generic argument parsing.

fn int_arg(ex: &ExecuteData, max_args: u32) -> Option<Option<i64>> {
    if argc(ex) > max_args {
        return None;
    }
    match arg(ex, 0) {
        None => Some(None),
        Some(z) => z.long().map(Some),
    }
}

fn atomic_add_fast(ex: &mut ExecuteData, ret: &mut Zval) -> bool {
    let Some(v) = int_arg(ex, 1) else {
        return false;
    };
    let Some(this) = this_of::<Atomic>(ex) else {
        return false;
    };
    ret_long(ret, this.add(v.unwrap_or(1)));
    true
}

fn atomic_sub_fast(ex: &mut ExecuteData, ret: &mut Zval) -> bool {
    let Some(v) = int_arg(ex, 1) else {
        return false;
    };
    let Some(this) = this_of::<Atomic>(ex) else {
        return false;
    };
    ret_long(ret, this.sub(v.unwrap_or(1)));
    true
}

fn atomic_get_fast(ex: &mut ExecuteData, ret: &mut Zval) -> bool {
    if argc(ex) != 0 {
        return false;
    }
    let Some(this) = this_of::<Atomic>(ex) else {
        return false;
    };
    ret_long(ret, this.get());
    true
}

fn long_add_fast(ex: &mut ExecuteData, ret: &mut Zval) -> bool {
    let Some(v) = int_arg(ex, 1) else {
        return false;
    };
    let Some(this) = this_of::<AtomicLong>(ex) else {
        return false;
    };
    ret_long(ret, this.add(v.unwrap_or(1)));
    true
}

fn long_sub_fast(ex: &mut ExecuteData, ret: &mut Zval) -> bool {
    let Some(v) = int_arg(ex, 1) else {
        return false;
    };
    let Some(this) = this_of::<AtomicLong>(ex) else {
        return false;
    };
    ret_long(ret, this.sub(v.unwrap_or(1)));
    true
}

fn long_get_fast(ex: &mut ExecuteData, ret: &mut Zval) -> bool {
    if argc(ex) != 0 {
        return false;
    }
    let Some(this) = this_of::<AtomicLong>(ex) else {
        return false;
    };
    ret_long(ret, this.get());
    true
}

crate::rsw_fast_handler!(atomic_add_handler, ATOMIC_ADD, atomic_add_fast);
crate::rsw_fast_handler!(atomic_sub_handler, ATOMIC_SUB, atomic_sub_fast);
crate::rsw_fast_handler!(atomic_get_handler, ATOMIC_GET, atomic_get_fast);
crate::rsw_fast_handler!(long_add_handler, LONG_ADD, long_add_fast);
crate::rsw_fast_handler!(long_sub_handler, LONG_SUB, long_sub_fast);
crate::rsw_fast_handler!(long_get_handler, LONG_GET, long_get_fast);

/// Installs the fast paths (module startup, after the classes exist).
pub fn after_classes() {
    let ce = <Atomic as RegisteredClass>::get_metadata().ce();
    install_fast(ce, "add", atomic_add_handler, &ATOMIC_ADD);
    install_fast(ce, "sub", atomic_sub_handler, &ATOMIC_SUB);
    install_fast(ce, "get", atomic_get_handler, &ATOMIC_GET);
    let ce = <AtomicLong as RegisteredClass>::get_metadata().ce();
    install_fast(ce, "add", long_add_handler, &LONG_ADD);
    install_fast(ce, "sub", long_sub_handler, &LONG_SUB);
    install_fast(ce, "get", long_get_handler, &LONG_GET);
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Atomic>().class::<AtomicLong>()
}
