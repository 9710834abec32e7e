//! The one interface through which the engine reaches user code.
//!
//! The engine calls these from the process and thread where they must run;
//! the PHP layer implements them by calling the callbacks given to
//! `$server->on()`. Tests implement them in plain Rust. Only ids and owned
//! bytes cross this line.

use super::http::{HttpRequest, Responder};

/// What a call into user code left behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Returned (possibly after an exception that was logged and handled).
    Done,
    /// The interpreter can no longer be used in this process (`exit()`, a
    /// fatal error): the worker answers what it can and exits with this code.
    Fatal(i32),
}

pub trait Hooks {
    /// In the master, before any worker exists.
    fn on_start(&self) {}
    /// In the manager (the master, in BASE mode), before any worker exists.
    fn on_manager_start(&self) {}
    fn on_manager_stop(&self) {}
    /// In a new worker, inside its runtime, before it accepts.
    fn on_worker_start(&self, _worker_id: usize) -> Outcome {
        Outcome::Done
    }
    /// In a stopping worker, once it no longer accepts.
    fn on_worker_stop(&self, _worker_id: usize) {}
    /// In a stopping worker, after `on_worker_stop`.
    fn on_worker_exit(&self, _worker_id: usize) {}
    /// In the manager, when a worker ended abnormally.
    fn on_worker_error(&self, _worker_id: usize, _pid: i32, _exit_code: i32, _signal: i32) {}
    /// In a worker, for every request. The response goes through `resp`.
    fn on_request(&self, req: HttpRequest, resp: Responder) -> Outcome;
    /// In the master, after every worker has exited.
    fn on_shutdown(&self) {}
    /// In the master, when a stop is requested, before the workers are told.
    fn on_before_shutdown(&self) {}
    /// In the master, when a reload starts, before any worker is replaced.
    fn on_before_reload(&self) {}
    /// In the master, once every worker of a reload has been replaced.
    fn on_after_reload(&self) {}
    /// In a worker just before the process exits: flush what must be flushed.
    fn before_process_exit(&self) {}
}
