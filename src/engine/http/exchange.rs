//! One request's exchange with the script: hand it over, wait for the
//! response head (its deadline, a fatal error meanwhile, a forgotten
//! `end()`), and count it. Shared by hyper's service (`conn`) and the fast
//! path (`fast`).

use std::pin::Pin;
use std::rc::Rc;
use std::time::Instant;

use http::{header, Response};

use super::body::RespBody;
use super::request::HttpRequest;
use super::response::{simple, Coding, RespContext, Responder};
use crate::engine::hooks::Outcome;
use crate::engine::net::outflow::Outflow;
use crate::engine::shared::stats;
use crate::engine::worker::ctx::WorkerCtx;

/// What every request counts around the script's answer (`stats()`, the
/// metrics, `max_request`), and the drain's `Connection: close`.
pub(super) struct Counting {
    _in_flight: stats::InFlight,
    /// The duration histogram (metrics): one clock read each way when on.
    began: Option<Instant>,
}

impl Counting {
    pub(super) fn start() -> Counting {
        stats::on_request_start();
        Counting {
            _in_flight: stats::InFlight::enter(),
            began: stats::histogram_on().then(Instant::now),
        }
    }

    pub(super) fn end(self, ctx: &WorkerCtx, resp: &mut Response<RespBody>) {
        stats::on_request_end();
        if let Some(t) = self.began {
            stats::observe_duration(t.elapsed().as_micros() as u64);
        }
        if ctx.is_draining() {
            // The last response on this connection: say so, and the
            // connection closes after writing it.
            super::response::materialize(resp);
            resp.headers_mut().insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
        }
        ctx.after_request();
    }
}

/// The response head of a handler that did not answer before returning;
/// `None` when the worker gave up on it after a fatal error.
pub(super) async fn wait_head(
    head_rx: super::response::HeadReceiver,
    ctx: &WorkerCtx,
) -> Option<Result<Response<RespBody>, ()>> {
    tokio::select! {
        biased;
        r = head_rx => Some(r.map_err(|_| ())),
        _ = ctx.gave_up() => None,
    }
}

/// The answer to a request with a chunked body leaves `Connection` to
/// hyper. A request with both Content-Length and Transfer-Encoding (a
/// smuggling attempt or a broken proxy) is read as chunked and the
/// connection closed after the answer; hyper then adds `close`, and drops
/// Content-Length from the head it gives us, so that request cannot be told
/// apart here, and a `keep-alive` of ours would make `keep-alive, close`.
pub(super) fn leave_connection_to_hyper(resp: &mut Response<RespBody>) {
    if resp
        .headers()
        .get(header::CONNECTION)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"keep-alive"))
    {
        resp.headers_mut().remove(header::CONNECTION);
    }
}

/// The script's answer to a request: at once (most handlers answer before
/// they return), or a wait, boxed so that the waiting state stays out of
/// every connection's task. (Returned once per request and taken apart at
/// once: boxing the common answer would cost an allocation per request.)
#[allow(clippy::large_enum_variant)]
pub(super) enum Answer {
    Now(Response<RespBody>),
    /// The fast path's answer at once, left where the responder put it
    /// (`HeadReceiver::value_mut`: no copy of the response out of it).
    Held(super::response::HeadReceiver),
    Later(Pin<Box<dyn std::future::Future<Output = Response<RespBody>>>>),
}

/// Hands `request` to the script; the answer, or how to wait for the
/// response head (the request's deadline, a fatal error meanwhile and a
/// forgotten `end()` each have their answer). Shared by hyper's service
/// and the fast path, whose head writer writes the answer (`lines`: the
/// buffers for the script's header lines, from the worker's pool).
pub(super) fn start(
    request: HttpRequest,
    ctx: &Rc<WorkerCtx>,
    keep_alive: bool,
    chunked_in: bool,
    flow: Rc<Outflow>,
    lines: Option<super::body::HeadLines>,
) -> Answer {
    let cfg = &ctx.cfg;
    let fd = request.fd;
    let is_head = request.method == http::Method::HEAD;
    let coding = request
        .headers
        .accept_encoding()
        .and_then(Coding::from_accept);
    let head_writer = lines.is_some();
    let lines = lines.unwrap_or_default();
    let (responder, head_rx) = Responder::with_lines(
        RespContext {
            is_head,
            keep_alive,
            coding,
            compression: cfg
                .http_compression
                .then_some((cfg.http_compression_level, cfg.http_compression_min_length)),
            compression_types: cfg.http_compression_types.clone(),
            outflow: Some(flow),
            head_writer,
        },
        lines,
    );
    ctx.requests.set(ctx.requests.get() + 1);
    // request_timeout: armed before the handler runs (the watchdog
    // interrupts PHP that is still running past it).
    let deadline = crate::engine::watchdog::Deadline::start(cfg.request_timeout);
    let outcome = ctx.hooks.on_request(request, responder);
    if let Outcome::Fatal(code) = outcome {
        ctx.poison(code);
    }
    let fix = move |mut resp: Response<RespBody>| {
        if chunked_in {
            leave_connection_to_hyper(&mut resp);
        }
        resp
    };
    if let Some(d) = deadline {
        let ctx = ctx.clone();
        return Answer::Later(Box::pin(async move {
            fix(super::deadline::wait_head(head_rx, d, &ctx, fd, keep_alive).await)
        }));
    }
    let failed =
        move |ctx: &WorkerCtx| simple(500, "", ctx.poisoned.get().is_some() || !keep_alive);
    let mut head_rx = head_rx;
    if head_writer && !chunked_in && head_rx.value_mut().is_some() {
        return Answer::Held(head_rx);
    }
    match head_rx.try_recv() {
        Ok(resp) => Answer::Now(fix(resp)),
        // The responder was dropped unanswered: the callback failed or forgot end().
        Err(super::answer::TryRecvError::Closed) => Answer::Now(failed(ctx)),
        Err(super::answer::TryRecvError::Empty) => {
            let ctx = ctx.clone();
            Answer::Later(Box::pin(async move {
                match wait_head(head_rx, &ctx).await {
                    Some(Ok(resp)) => fix(resp),
                    Some(Err(())) => failed(&ctx),
                    // PHP failed fatally meanwhile: 503 rather than a lost request.
                    None => simple(503, "", true),
                }
            }))
        }
    }
}
