//! The state one worker's tasks share (`WorkerCtx`): its settings and
//! hooks, the drain count of open connections, the shutdown signal, the
//! poison flag of a fatal error, and the checked `WorkerState` machine.
//! Apart from `worker` so connection code (tcp, ws, http, conns) can use it
//! without importing the serve loop.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{watch, Notify};

use crate::engine::config::ServerConfig;
use crate::engine::hooks::Hooks;

/// Worker id of this process; -1 in the master and manager.
static WORKER_ID: AtomicI32 = AtomicI32::new(-1);
/// This process is a task worker.
static IS_TASK: AtomicBool = AtomicBool::new(false);

/// In a new worker or task worker, before anything asks who it is.
pub(crate) fn set_worker_id(id: i32, task: bool) {
    WORKER_ID.store(id, Ordering::Relaxed);
    IS_TASK.store(task, Ordering::Relaxed);
}

pub fn current_worker_id() -> i32 {
    WORKER_ID.load(Ordering::Relaxed)
}

/// In a process forked from a worker (`Swoole\\Process::start()`): it is
/// not that worker.
pub fn forget_worker_id() {
    WORKER_ID.store(-1, Ordering::Relaxed);
    IS_TASK.store(false, Ordering::Relaxed);
}

/// True in a task worker (`$server->taskworker`).
pub fn is_task_worker() -> bool {
    IS_TASK.load(Ordering::Relaxed)
}

/// Named worker states, logged on each transition at debug level.
/// Starting -> Ready -> Draining -> Exited; a worker may also drain or
/// exit straight from Starting (a fatal in `workerStart`, a SIGTERM before
/// it was ready), and nothing goes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerState {
    Starting,
    Ready,
    Draining,
    Exited,
}

impl WorkerState {
    /// `to` if this state may move there, else the refused pair.
    pub fn transition(self, to: WorkerState) -> Result<WorkerState, BadTransition> {
        use WorkerState::*;
        match (self, to) {
            (Starting, Ready | Draining | Exited) | (Ready, Draining) | (Draining, Exited) => {
                Ok(to)
            }
            _ => Err(BadTransition { from: self, to }),
        }
    }
}

/// A state change the machine does not allow (a bug in the caller).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadTransition {
    pub from: WorkerState,
    pub to: WorkerState,
}

impl std::fmt::Display for BadTransition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "worker state {:?} cannot become {:?}",
            self.from, self.to
        )
    }
}

/// Shared by every task of one worker. `Rc`, not `Arc`: a worker is one thread.
pub struct WorkerCtx {
    pub id: usize,
    pub cfg: Rc<ServerConfig>,
    pub hooks: Rc<dyn Hooks>,
    pub server_port: u16,
    /// Flips to true when the worker starts draining; every connection task
    /// watches it and asks hyper for a graceful shutdown.
    pub shutdown: watch::Sender<bool>,
    /// Set when PHP can no longer run here: the exit code to leave with.
    pub poisoned: Cell<Option<i32>>,
    /// When it was set, and what wakes requests waiting on a response
    /// then (`gave_up`).
    poisoned_at: Cell<Option<Instant>>,
    poison_note: Notify,
    /// Open connections; `drained` fires when it reaches zero.
    pub conns: Cell<usize>,
    pub drained: Notify,
    pub requests: Cell<u64>,
    /// Requests after which this worker asks to be replaced (0: never):
    /// `max_request` plus a random share of `max_request_grace`.
    pub request_limit: u64,
    /// A replacement was asked for (once).
    retiring: Cell<bool>,
    /// Drain without a SIGTERM (retiring with no master to ask).
    stop_self: Cell<bool>,
    state: Cell<WorkerState>,
    wake: Notify,
    /// Buffers of the HTTP fast path, lent to a connection while it has a
    /// request to read or an answer to write: an idle connection holds none.
    pub http_bufs: super::bufpool::BufPool,
    /// Fires (`notify_waiters`) when the worker starts retiring.
    pub retired: Notify,
}

impl WorkerCtx {
    /// A fresh context in state `state`; `request_limit` 0 means none.
    pub(crate) fn new(
        id: usize,
        cfg: Rc<ServerConfig>,
        hooks: Rc<dyn Hooks>,
        server_port: u16,
        request_limit: u64,
        state: WorkerState,
    ) -> Rc<Self> {
        let (shutdown, _) = watch::channel(false);
        Rc::new(WorkerCtx {
            id,
            cfg,
            hooks,
            server_port,
            shutdown,
            poisoned: Cell::new(None),
            poisoned_at: Cell::new(None),
            poison_note: Notify::new(),
            conns: Cell::new(0),
            drained: Notify::new(),
            requests: Cell::new(0),
            request_limit,
            // Outside a server process nothing replaces us: never retire.
            retiring: Cell::new(state == WorkerState::Ready),
            stop_self: Cell::new(false),
            state: Cell::new(state),
            wake: Notify::new(),
            http_bufs: super::bufpool::BufPool::default(),
            retired: Notify::new(),
        })
    }

    /// A context outside any server process (`Coroutine\Http\Server` in
    /// the script's own process): no master, no retiring, no stats slot.
    pub fn standalone(cfg: Rc<ServerConfig>, hooks: Rc<dyn Hooks>, server_port: u16) -> Rc<Self> {
        Self::new(0, cfg, hooks, server_port, 0, WorkerState::Ready)
    }

    pub fn poison(&self, code: i32) {
        if self.poisoned.get().is_none() {
            crate::engine::shared::stats::set_exit_reason(
                crate::engine::shared::stats::ExitReason::Fatal,
            );
            self.poisoned.set(Some(code));
            self.poisoned_at.set(Some(Instant::now()));
            crate::engine::worker::halt::no_more_php();
            self.poison_note.notify_waiters();
        }
        self.wake.notify_one();
    }

    /// Resolves once PHP failed fatally in this worker and a request still
    /// unanswered has had `min(1 s, max_wait_time / 2)` to finish: it is
    /// then answered 503 rather than lost when the worker exits (its
    /// coroutine may never run again after a fatal error).
    pub async fn gave_up(&self) {
        loop {
            let note = self.poison_note.notified();
            if let Some(at) = self.poisoned_at.get() {
                let grace = Duration::from_secs(1).min(self.cfg.max_wait_time / 2);
                tokio::time::sleep_until((at + grace).into()).await;
                return;
            }
            note.await;
        }
    }

    /// Moves to state `s`, checked by [`WorkerState::transition`]: a
    /// refused change is logged as an error and leaves the state as it is.
    pub fn set_state(&self, s: WorkerState) -> Result<(), BadTransition> {
        if let Err(e) = self.state.get().transition(s) {
            crate::rlog!(Error, "worker#{}: {e}", self.id);
            return Err(e);
        }
        crate::rlog!(
            Debug,
            "worker#{} {:?} -> {:?}",
            self.id,
            self.state.get(),
            s
        );
        crate::engine::shared::stats::set_state(match s {
            WorkerState::Starting => crate::engine::shared::stats::ProcState::Starting,
            WorkerState::Ready => crate::engine::shared::stats::ProcState::Ready,
            WorkerState::Draining | WorkerState::Exited => {
                crate::engine::shared::stats::ProcState::Draining
            }
        });
        self.state.set(s);
        Ok(())
    }

    /// Drains without a SIGTERM (no master to ask, or the master left).
    pub fn stop_self(&self) {
        self.stop_self.set(true);
        self.wake.notify_one();
    }

    /// The serve loop should stop: a fatal error or [`Self::stop_self`].
    pub fn should_stop(&self) -> bool {
        self.poisoned.get().is_some() || self.stop_self.get()
    }

    /// Resolves when [`Self::poison`] or [`Self::stop_self`] wakes the serve loop.
    pub async fn woken(&self) {
        self.wake.notified().await
    }

    pub fn state(&self) -> WorkerState {
        self.state.get()
    }

    /// Called after each request: asks for a replacement once the worker
    /// has served `request_limit` requests or its RSS passed
    /// `max_worker_memory`.
    pub fn after_request(&self) {
        if self.retiring.get() {
            return;
        }
        let n = self.requests.get();
        if self.request_limit > 0 && n >= self.request_limit {
            crate::engine::shared::stats::set_exit_reason(
                crate::engine::shared::stats::ExitReason::MaxRequest,
            );
            if is_task_worker() {
                self.retire(&format!("task_max_request reached ({n} tasks)"));
            } else {
                self.retire(&format!("max_request reached ({n} requests)"));
            }
            return;
        }
        let max_mem = self.cfg.max_worker_memory;
        if max_mem > 0 {
            if let Some(rss) = crate::engine::shared::stats::my_rss() {
                if rss > max_mem {
                    crate::engine::shared::stats::set_exit_reason(
                        crate::engine::shared::stats::ExitReason::MaxMemory,
                    );
                    self.retire(&format!(
                        "max_worker_memory exceeded (rss={rss} > {max_mem} bytes)"
                    ));
                }
            }
        }
    }

    /// Asks the master to replace this worker; it keeps serving until the
    /// master's SIGTERM arrives (after the replacement is ready). Without a
    /// master (a worker run by a test), it drains by itself.
    pub fn retire(&self, why: &str) {
        if self.retiring.replace(true) {
            return;
        }
        self.retired.notify_waiters();
        crate::rlog!(
            Info,
            "worker#{}(pid={}) {why}: it will be replaced",
            self.id,
            std::process::id()
        );
        if !crate::engine::ipc::notice::notify_master(crate::engine::ipc::notice::Notice::Retire) {
            self.stop_self();
        }
    }

    /// A replacement was asked for (`max_request`, `max_worker_memory`).
    pub fn is_retiring(&self) -> bool {
        self.retiring.get()
    }

    pub fn is_draining(&self) -> bool {
        self.state.get() == WorkerState::Draining
    }

    pub fn conn_opened(&self) {
        self.conns.set(self.conns.get() + 1);
    }

    pub fn conn_closed(&self) {
        let n = self.conns.get().saturating_sub(1);
        self.conns.set(n);
        if n == 0 {
            self.drained.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WorkerState::*;

    #[test]
    fn transitions_go_forward_only() {
        assert_eq!(Starting.transition(Ready), Ok(Ready));
        assert_eq!(Ready.transition(Draining), Ok(Draining));
        assert_eq!(Draining.transition(Exited), Ok(Exited));
        assert!(Starting.transition(Draining).is_ok());
        assert!(Ready.transition(Starting).is_err());
        assert!(Draining.transition(Ready).is_err());
        assert!(Exited.transition(Starting).is_err());
        assert!(Ready.transition(Ready).is_err());
        let e = Exited.transition(Draining).unwrap_err();
        assert_eq!((e.from, e.to), (Exited, Draining));
    }
}
