//! `Swoole\Coroutine\Lock`: a mutex a coroutine waits on without holding
//! the worker. The lock word is an atomic in memory of its own, shared with
//! the processes forked later when `$shared` is true (a server's workers);
//! a waiting coroutine retries on the event loop (1 ms, then up to 10 ms).

use std::cell::Cell;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use ext_php_rs::prelude::*;

use super::errors::{set_last_error, SWOOLE_ERROR_CO_OUT_OF_COROUTINE};
use crate::coro;

const LOCK_NB: i64 = 4;

/// The lock word: 0 when free, else `pid << 24 | cid` of the holder.
struct Word(*mut AtomicI64);

impl Word {
    fn new(shared: bool) -> Word {
        if shared {
            // SAFETY: an anonymous shared mapping of one page; checked for
            // failure below. It is never unmapped (the lock may be used by
            // every forked worker until the process exits).
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    4096,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                return Word(p.cast());
            }
        }
        Word(Box::into_raw(Box::new(AtomicI64::new(0))))
    }

    fn get(&self) -> &AtomicI64 {
        // SAFETY: the pointer is a live, aligned AtomicI64 (mmap'ed page or
        // leaked box) for the process lifetime.
        unsafe { &*self.0 }
    }
}

fn me() -> i64 {
    // SAFETY: getpid has no preconditions.
    let pid = i64::from(unsafe { libc::getpid() });
    (pid << 24) | (coro::current() & 0xff_ffff)
}

#[php_class]
#[php(name = "Swoole\\Coroutine\\Lock")]
pub struct Lock {
    word: Word,
    err: Cell<i64>,
}

#[php_impl]
impl Lock {
    #[php(defaults(shared = false))]
    pub fn __construct(shared: bool) -> Self {
        Lock {
            word: Word::new(shared),
            err: Cell::new(0),
        }
    }

    #[php(defaults(operation = 2))]
    pub fn lock(&self, operation: i64) -> bool {
        if coro::current() < 0 {
            self.err.set(SWOOLE_ERROR_CO_OUT_OF_COROUTINE);
            set_last_error(SWOOLE_ERROR_CO_OUT_OF_COROUTINE);
            return false;
        }
        let who = me();
        let w = self.word.get();
        let mut delay = Duration::from_millis(1);
        loop {
            if w.compare_exchange(0, who, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                self.err.set(0);
                return true;
            }
            if operation & LOCK_NB != 0 {
                self.err.set(i64::from(libc::EWOULDBLOCK));
                return false;
            }
            if coro::sleep(delay).is_err() {
                return false;
            }
            delay = (delay * 2).min(Duration::from_millis(10));
        }
    }

    pub fn unlock(&self) -> bool {
        if coro::current() < 0 {
            self.err.set(SWOOLE_ERROR_CO_OUT_OF_COROUTINE);
            set_last_error(SWOOLE_ERROR_CO_OUT_OF_COROUTINE);
            return false;
        }
        let w = self.word.get();
        if w.load(Ordering::Acquire) == 0 {
            self.err.set(i64::from(libc::EPERM));
            return false;
        }
        w.store(0, Ordering::Release);
        self.err.set(0);
        true
    }

    #[php(getter, name = "errCode")]
    pub fn prop_err_code(&self) -> i64 {
        self.err.get()
    }

    #[php(setter, name = "errCode")]
    pub fn set_prop_err_code(&self, v: i64) {
        self.err.set(v);
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Lock>()
}
