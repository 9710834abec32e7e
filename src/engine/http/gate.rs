//! `max_concurrency` and `worker_max_concurrency`: how many requests the
//! server, and one worker, hand to the request handler at once.
//!
//! As in Swoole 6.2.2: a request that arrives while the whole server already
//! has `max_concurrency` requests in flight (queued ones included) is answered
//! `503 Service Unavailable` and its connection closed; past a worker's
//! `worker_max_concurrency` a request waits, in arrival order, until one of
//! that worker's requests has its response head. The server-wide count is
//! one atomic in the shared stats mapping (`stats::concurrency`); the worker's
//! queue is a FIFO semaphore on the worker's thread.

use std::cell::RefCell;
use std::rc::Rc;

use tokio::sync::{Semaphore, SemaphorePermit};

use crate::engine::config::{Mode, ServerConfig};
use crate::engine::shared::stats;
use crate::engine::worker::ctx::WorkerCtx;

/// This worker's queue limit and its semaphore.
type WorkerGate = (u32, Rc<Semaphore>);

thread_local! {
    /// The worker's queue, made on its first request (limit, semaphore).
    static WORKER: Box<RefCell<Option<WorkerGate>>> = Box::new(RefCell::new(None));
}

/// True when a new request must be turned away with 503.
pub fn over_server_limit(cfg: &ServerConfig) -> bool {
    cfg.max_concurrency > 0 && stats::concurrency() >= i64::from(cfg.max_concurrency)
}

/// The worker's semaphore when `worker_max_concurrency` is set.
pub fn worker_queue(cfg: &ServerConfig) -> Option<Rc<Semaphore>> {
    let limit = cfg.worker_max_concurrency;
    if limit == 0 {
        return None;
    }
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        match &*w {
            Some((l, sem)) if *l == limit => Some(sem.clone()),
            _ => {
                let sem = Rc::new(Semaphore::new(limit as usize));
                *w = Some((limit, sem.clone()));
                Some(sem)
            }
        }
    })
}

/// Waits for a place among the worker's running requests (`None`: the
/// semaphore was closed, which never happens; the request then runs).
pub async fn enter(sem: &Semaphore) -> Option<SemaphorePermit<'_>> {
    sem.acquire().await.ok()
}

/// [`enter`], for a worker that may restart meanwhile: a place free at
/// once is taken; a request that had to wait and gets its turn while a
/// PROCESS-mode worker drains (reload, shutdown) gets `None` and is not
/// run (Swoole answers the requests still queued then with 503 when the
/// running one is done).
pub async fn enter_unless_draining<'a>(
    sem: &'a Semaphore,
    ctx: &WorkerCtx,
) -> Option<Option<SemaphorePermit<'a>>> {
    if let Ok(p) = sem.try_acquire() {
        return Some(Some(p));
    }
    let p = enter(sem).await;
    if ctx.is_draining() && ctx.cfg.mode == Mode::Process {
        return None;
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn worker_queue_runs_in_arrival_order_up_to_the_limit() {
        let cfg = ServerConfig {
            worker_max_concurrency: 2,
            ..ServerConfig::default()
        };
        let sem = worker_queue(&cfg).expect("queue");
        let a = enter(&sem).await;
        let b = enter(&sem).await;
        assert!(a.is_some() && b.is_some());
        assert_eq!(sem.available_permits(), 0);
        let order = Rc::new(RefCell::new(Vec::new()));
        let local = tokio::task::LocalSet::new();
        for i in 0..3 {
            let (sem, order) = (sem.clone(), order.clone());
            local.spawn_local(async move {
                let _p = enter(&sem).await;
                order.borrow_mut().push(i);
                tokio::task::yield_now().await;
            });
        }
        local
            .run_until(async {
                tokio::task::yield_now().await;
                assert!(order.borrow().is_empty(), "ran past the limit");
                drop(a);
                drop(b);
                for _ in 0..10 {
                    tokio::task::yield_now().await;
                }
            })
            .await;
        assert_eq!(*order.borrow(), vec![0, 1, 2]);
    }

    #[test]
    fn no_limits_means_no_queue_and_no_503() {
        let cfg = ServerConfig::default();
        assert!(worker_queue(&cfg).is_none());
        assert!(!over_server_limit(&cfg));
    }
}
