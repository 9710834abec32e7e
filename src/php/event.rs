//! `Swoole\Event`: `wait()`, `defer()`, `exit()`, `cycle()`, over the
//! engine's event loop.

use std::cell::RefCell;

use ext_php_rs::exception::PhpResult;
use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;

use super::boundary;
use super::coroutine;
use super::exception::type_error;
use crate::engine::event_loop;

thread_local! {
    static CYCLE: RefCell<Option<Zval>> = const { RefCell::new(None) };
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

    /// Alias of `wait()` kept by Swoole.
    pub fn rshutdown() {
        coroutine::run_loop();
    }

    /// Calls `$callback` on the loop's next round.
    pub fn defer(callback: &Zval) -> PhpResult<bool> {
        if !callback.is_callable() {
            return Err(type_error(
                "Swoole\\Event::defer(): Argument #1 ($callback) must be a valid callback",
            ));
        }
        let cb = callback.shallow_clone();
        event_loop::spawn(async move {
            tokio::task::yield_now().await;
            let r = boundary::call(&cb, &mut []);
            drop(r);
        });
        coroutine::schedule_loop();
        Ok(true)
    }

    /// Stops the running loop.
    pub fn exit() {
        event_loop::request_exit();
    }

    /// Calls `$callback` after each round of the loop (null removes it).
    pub fn cycle(callback: Option<&Zval>, before: Option<bool>) -> PhpResult<bool> {
        let _ = before;
        let cb = match callback {
            Some(z) if z.is_null() => None,
            Some(z) if z.is_callable() => Some(z.shallow_clone()),
            Some(_) => return Err(type_error(
                "Swoole\\Event::cycle(): Argument #1 ($callback) must be a valid callback or null",
            )),
            None => None,
        };
        let start = cb.is_some() && CYCLE.with(|c| c.borrow().is_none());
        CYCLE.with(|c| *c.borrow_mut() = cb);
        if start {
            event_loop::spawn_untracked(async {
                loop {
                    tokio::task::yield_now().await;
                    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                    let cb = CYCLE.with(|c| c.borrow().as_ref().map(Zval::shallow_clone));
                    let Some(cb) = cb else { break };
                    drop(boundary::call(&cb, &mut []));
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
}
