//! `request_timeout`: waits for a response head until the request's
//! deadline, answering 504 past it, and 503 when the worker became unusable
//! (a fatal error, another request's timeout) while this one waited.

use super::body::RespBody;
use super::response::simple;
use crate::engine::hooks::Hooks;
use crate::engine::watchdog::Deadline;
use crate::engine::worker::ctx::WorkerCtx;
use http::Response;

/// The head, or the answer the deadline or a poisoned worker gives instead.
pub async fn wait_head(
    head_rx: super::response::HeadReceiver,
    deadline: Deadline,
    ctx: &WorkerCtx,
    fd: i64,
    keep_alive: bool,
) -> Response<RespBody> {
    let mut shutdown = ctx.shutdown.subscribe();
    tokio::pin!(head_rx);
    let sleep = tokio::time::sleep_until(deadline.at.into());
    tokio::pin!(sleep);
    loop {
        tokio::select! {
            // The deadline first: when PHP was interrupted past it, both are
            // ready and the client is owed a 504, not the failure's 500.
            biased;
            _ = &mut sleep => break,
            r = &mut head_rx => {
                // After a loop blocked past the deadline, tokio's clock has
                // not caught up yet: look at the real time. A handler that
                // was interrupted failed (500); the client is owed a 504.
                let late = std::time::Instant::now() >= deadline.at;
                match r {
                    // Interrupted for another request's deadline while it
                    // ran: this one is a victim of the replacement, 503.
                    Ok(resp)
                        if !late
                            && resp.status() == 500
                            && ctx.poisoned.get().is_some()
                            && crate::engine::watchdog::deadline_fired() =>
                    {
                        return simple(503, "", true)
                    }
                    Ok(resp) if !(late && resp.status() == 500) => return resp,
                    Err(_) if !late => {
                        return simple(500, "", ctx.poisoned.get().is_some() || !keep_alive)
                    }
                    _ => break,
                }
            }
            _ = shutdown.changed() => {
                if ctx.poisoned.get().is_some() {
                    // PHP can no longer run here: this request will never
                    // be answered by its handler.
                    return simple(503, "", true);
                }
            }
        }
    }
    drop(deadline);
    crate::engine::shared::stats::on_request_timeout();
    let secs = ctx
        .cfg
        .request_timeout
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    crate::rlog!(
        Warning,
        "worker#{}: request on connection {fd} exceeded request_timeout ({secs} s): answered 504",
        ctx.id
    );
    Hooks::on_request_timeout(&*ctx.hooks, fd);
    simple(504, "", true)
}
