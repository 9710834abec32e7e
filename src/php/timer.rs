//! `Swoole\Timer` and `swoole_timer_tick/after/clear`: the engine runs the
//! timers; this file keeps each timer's callable and arguments by id, and
//! runs the callback in a new coroutine, as Swoole does.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpResult;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::coroutine::{self, Job};
use super::exception::type_error;
use crate::engine::rt::timer::{self, TimerId};

struct Entry {
    callable: Zval,
    params: Vec<Zval>,
    tick: bool,
    /// The `Event::dispatch()` round it was added (or last fired) in.
    round: u64,
}

/// Completed `Event::dispatch()` rounds. As in Swoole's reactor, a timer
/// does not fire in the round it was added in: the first `dispatch()` after
/// a `Timer::tick()` waits for its deadline and returns, the next one runs
/// it at once. Process-wide (one PHP thread; the TLS block is full).
static ROUND: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// Inside `Event::dispatch()` (the only loop that counts rounds).
static IN_DISPATCH: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Timers held back that way, fired at the start of the next round.
static OWED: std::sync::Mutex<Vec<TimerId>> = std::sync::Mutex::new(Vec::new());

/// Runs one `Event::dispatch()` round with `round`; answers what it does.
pub fn dispatch_round(round: impl FnOnce() -> bool) -> bool {
    use std::sync::atomic::Ordering::Relaxed;
    let r = if fire_owed() {
        true
    } else {
        IN_DISPATCH.store(true, Relaxed);
        let r = round();
        IN_DISPATCH.store(false, Relaxed);
        r
    };
    ROUND.fetch_add(1, Relaxed);
    r
}

/// Fires the timers a `dispatch()` round held back; true if there were any.
pub fn fire_owed() -> bool {
    let owed = std::mem::take(&mut *OWED.lock().unwrap_or_else(|e| e.into_inner()));
    for &id in &owed {
        fire_now(id);
    }
    !owed.is_empty()
}

/// Timer callbacks run outside any coroutine (`enable_coroutine` off). A
/// process-wide setting, not a thread-local: a `Process` child runs PHP on
/// a new thread and keeps its parent's settings.
static PLAIN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

thread_local! {
    static CALLBACKS: Box<RefCell<HashMap<TimerId, Entry>>> = Box::new(RefCell::new(HashMap::new()));
}

/// `enable_coroutine` of `swoole_async_set()`/`Coroutine::set()`.
pub fn set_enable_coroutine(on: bool) {
    PLAIN.store(!on, std::sync::atomic::Ordering::Relaxed);
}

/// False after `enable_coroutine` was turned off: async callbacks (timers,
/// `Event::cycle`) then run outside any coroutine.
pub fn coroutine_enabled() -> bool {
    !PLAIN.load(std::sync::atomic::Ordering::Relaxed)
}

fn fire(id: TimerId) {
    use std::sync::atomic::Ordering::Relaxed;
    if IN_DISPATCH.load(Relaxed) {
        let round = ROUND.load(Relaxed);
        let held = CALLBACKS.with(|c| c.borrow().get(&id).is_some_and(|e| e.round == round));
        if held {
            OWED.lock().unwrap_or_else(|e| e.into_inner()).push(id);
            // The round ends here, as Swoole's after its timer check.
            crate::engine::rt::event_loop::note_activity();
            crate::engine::rt::event_loop::wake();
            return;
        }
    }
    fire_now(id);
}

fn fire_now(id: TimerId) {
    let job = CALLBACKS.with(|c| {
        let mut c = c.borrow_mut();
        let e = c.get_mut(&id)?;
        e.round = ROUND.load(std::sync::atomic::Ordering::Relaxed);
        let mut args = Vec::with_capacity(e.params.len() + 1);
        if e.tick {
            let mut z = Zval::new();
            z.set_long(id);
            args.push(z);
        } else {
            // An `after` timer fires once: its callable goes with it.
            let e = c.remove(&id)?;
            args.extend(e.params);
            return Some(Job {
                callable: e.callable,
                args,
                done: None,
            });
        }
        args.extend(e.params.iter().map(Zval::shallow_clone));
        Some(Job {
            callable: e.callable.shallow_clone(),
            args,
            done: None,
        })
    });
    if let Some(mut job) = job {
        if PLAIN.load(std::sync::atomic::Ordering::Relaxed) {
            // `swoole_async_set(['enable_coroutine' => false])`: no coroutine.
            coroutine::after_failure(super::boundary::call_void(&job.callable, &mut job.args));
        } else {
            let _ = coroutine::spawn(job);
        }
    }
    // A tick cleared (by its own callback or anyone) no longer needs its callable.
    if !timer::exists(id) {
        CALLBACKS.with(|c| c.borrow_mut().remove(&id));
    }
}

fn add(api: &str, ms: i64, callback: &Zval, params: &[&Zval], tick: bool) -> PhpResult<Zval> {
    let mut out = Zval::new();
    if !callback.is_callable() {
        return Err(type_error(format!(
            "{api}(): Argument #2 ($callback) must be a valid callback, {}",
            super::coroutine::callable_problem(callback)
        )));
    }
    if ms < 1 {
        php_error(
            &ErrorType::Warning,
            "Timer must be greater than or equal to 1",
        );
        out.set_bool(false);
        return Ok(out);
    }
    let id = timer::add(Duration::from_millis(ms as u64), tick, Rc::new(fire));
    CALLBACKS.with(|c| {
        c.borrow_mut().insert(
            id,
            Entry {
                callable: callback.shallow_clone(),
                params: params.iter().map(|z| z.shallow_clone()).collect(),
                tick,
                round: ROUND.load(std::sync::atomic::Ordering::Relaxed),
            },
        )
    });
    coroutine::schedule_loop();
    out.set_long(id);
    Ok(out)
}

fn clear(id: i64) -> bool {
    let ok = timer::clear(id);
    CALLBACKS.with(|c| c.borrow_mut().remove(&id));
    ok
}

#[php_class]
#[php(name = "Swoole\\Timer")]
pub struct Timer;

#[php_impl]
impl Timer {
    /// Calls `$callback($timerId, ...$params)` every `$ms` milliseconds.
    pub fn tick(ms: i64, callback: &Zval, params: &[&Zval]) -> PhpResult<Zval> {
        add("Swoole\\Timer::tick", ms, callback, params, true)
    }

    /// Calls `$callback(...$params)` once, after `$ms` milliseconds.
    pub fn after(ms: i64, callback: &Zval, params: &[&Zval]) -> PhpResult<Zval> {
        add("Swoole\\Timer::after", ms, callback, params, false)
    }

    pub fn clear(timer_id: i64) -> bool {
        clear(timer_id)
    }

    pub fn clear_all() -> bool {
        CALLBACKS.with(|c| c.borrow_mut().clear());
        timer::clear_all()
    }

    pub fn exists(timer_id: i64) -> bool {
        timer::exists(timer_id)
    }

    /// `exec_msec`, `exec_count`, `interval`, `round`, `removed`; null if unknown.
    pub fn info(timer_id: i64) -> Zval {
        let Some(i) = timer::info(timer_id) else {
            let mut z = Zval::new();
            z.set_null();
            return z;
        };
        let mut ht = ZendHashTable::new();
        let _ = ht.insert("exec_msec", i.exec_msec);
        let _ = ht.insert("exec_count", i.exec_count);
        let _ = ht.insert("interval", i.interval);
        let _ = ht.insert("round", i.round);
        let _ = ht.insert("removed", i.removed);
        let mut z = Zval::new();
        z.set_hashtable(ht);
        z
    }

    /// The live timer ids (a `Swoole\\Timer\\Iterator`, as in Swoole).
    pub fn list() -> Zval {
        let mut ht = ZendHashTable::new();
        for id in timer::list() {
            let _ = ht.push(id);
        }
        let mut arr = Zval::new();
        arr.set_hashtable(ht);
        let it = ext_php_rs::zend::ClassEntry::try_find("Swoole\\Timer\\Iterator").and_then(|ce| {
            use ext_php_rs::convert::IntoZval;
            let obj = ext_php_rs::types::ZendObject::new(ce);
            obj.try_call_method("__construct", vec![&arr]).ok()?;
            let mut z = Zval::new();
            obj.set_zval(&mut z, false).ok()?;
            Some(z)
        });
        it.unwrap_or(arr)
    }

    pub fn stats() -> Zval {
        let mut ht = ZendHashTable::new();
        let _ = ht.insert("initialized", timer::initialized());
        let _ = ht.insert("num", timer::pending() as i64);
        let _ = ht.insert("round", timer::round());
        let mut z = Zval::new();
        z.set_hashtable(ht);
        z
    }

    /// Swoole 4 API, kept for old scripts: no-op.
    pub fn set(_settings: &ZendHashTable) {}
}

#[php_function]
pub fn swoole_timer_tick(ms: i64, callback: &Zval, params: &[&Zval]) -> PhpResult<Zval> {
    add("swoole_timer_tick", ms, callback, params, true)
}

#[php_function]
pub fn swoole_timer_after(ms: i64, callback: &Zval, params: &[&Zval]) -> PhpResult<Zval> {
    add("swoole_timer_after", ms, callback, params, false)
}

#[php_function]
pub fn swoole_timer_clear(timer_id: i64) -> bool {
    clear(timer_id)
}

#[php_function]
pub fn swoole_timer_exists(timer_id: i64) -> bool {
    timer::exists(timer_id)
}

#[php_function]
pub fn swoole_timer_clear_all() -> bool {
    CALLBACKS.with(|c| c.borrow_mut().clear());
    timer::clear_all()
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module
        .class::<Timer>()
        .function(wrap_function!(swoole_timer_tick))
        .function(wrap_function!(swoole_timer_after))
        .function(wrap_function!(swoole_timer_clear))
        .function(wrap_function!(swoole_timer_exists))
        .function(wrap_function!(swoole_timer_clear_all))
}

/// Request shutdown: drop the callables.
pub fn shutdown() {
    CALLBACKS.with(|c| c.borrow_mut().clear());
}
