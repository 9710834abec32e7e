//! `Swoole\Event`: `wait()`, `defer()`, `exit()`, `cycle()`, over the
//! engine's event loop.

use std::cell::{Cell, RefCell};

use ext_php_rs::exception::PhpResult;
use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use super::boundary;
use super::coroutine;
use super::exception::type_error;
use crate::engine::event_loop;

thread_local! {
    static EXITED: Cell<bool> = const { Cell::new(false) };
    static CYCLE: Box<RefCell<Option<Zval>>> = Box::new(RefCell::new(None));
    /// `Event::defer()` callbacks, run in the order they were added.
    static DEFERRED: Box<RefCell<std::collections::VecDeque<Zval>>> = Box::new(RefCell::new(std::collections::VecDeque::new()));
}

#[php_class]
#[php(name = "Swoole\\Event")]
pub struct Event;

#[php_impl]
impl Event {
    /// Runs the event loop until no timer, coroutine or task is left.
    pub fn wait() {
        coroutine::run_loop();
    }

    /// The loop run at the end of a script (registered as a shutdown
    /// function on first use); skipped after `Event::exit()`.
    pub fn rshutdown() {
        if !EXITED.with(Cell::get) {
            coroutine::run_loop();
        }
    }

    /// Calls `$callback` on the loop's next round.
    pub fn defer(callback: &Zval) -> PhpResult<bool> {
        if !callback.is_callable() {
            return Err(type_error(
                "Swoole\\Event::defer(): Argument #1 ($callback) must be a valid callback",
            ));
        }
        let first = DEFERRED.with(|d| {
            let mut d = d.borrow_mut();
            d.push_back(callback.shallow_clone());
            d.len() == 1
        });
        if first {
            event_loop::spawn(async {
                tokio::task::yield_now().await;
                while let Some(cb) = DEFERRED.with(|d| d.borrow_mut().pop_front()) {
                    drop(boundary::call(&cb, &mut []));
                }
            });
        }
        coroutine::schedule_loop();
        Ok(true)
    }

    /// Stops the running loop (and the one a script runs at its end).
    pub fn exit() {
        EXITED.with(|e| e.set(true));
        event_loop::request_exit();
    }

    /// Calls `$callback` at the end of each round of the loop that ran
    /// something (null removes it: false when none was set), outside any
    /// coroutine, as in Swoole.
    #[php(optional = before, defaults(before = false))]
    pub fn cycle(callback: Option<&Zval>, before: bool) -> PhpResult<bool> {
        let _ = before;
        let cb = match callback {
            Some(z) if z.is_null() => None,
            Some(z) if z.is_callable() => Some(z.shallow_clone()),
            Some(_) => return Err(type_error(
                "Swoole\\Event::cycle(): Argument #1 ($callback) must be a valid callback or null",
            )),
            None => None,
        };
        let had = CYCLE.with(|c| c.borrow().is_some());
        if cb.is_none() && !had {
            return Ok(false);
        }
        let start = cb.is_some() && !had;
        CYCLE.with(|c| *c.borrow_mut() = cb);
        if start {
            event_loop::spawn_untracked(async {
                loop {
                    // No PHP value may live across the await: this task can
                    // outlive the request (it is dropped at process exit).
                    {
                        let cb = CYCLE.with(|c| c.borrow().as_ref().map(Zval::shallow_clone));
                        let Some(cb) = cb else { break };
                        drop(boundary::call(&cb, &mut []));
                    }
                    // Its own call counts too: the next round starts after it.
                    event_loop::next_round(event_loop::activity()).await;
                }
            });
        }
        Ok(true)
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Event>()
}

pub fn shutdown() {
    CYCLE.with(|c| c.borrow_mut().take());
    DEFERRED.with(|d| d.borrow_mut().clear());
}
