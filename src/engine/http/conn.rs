//! One client connection: hyper's HTTP/1.1 state machine plus our service,
//! which reads the body (bounded by `package_max_length`), hands the request
//! to the hooks and waits for the response head.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::{Bytes, BytesMut};
use http::{header, Request, Response, Version};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpStream;

use super::body::RespBody;
use super::request::HttpRequest;
use super::response::{simple, Coding, RespContext, Responder};
use super::static_files;
use crate::engine::hooks::Outcome;
use crate::engine::worker::WorkerCtx;

/// Largest request head hyper buffers before answering 431.
const MAX_HEAD: usize = 64 * 1024;

pub async fn serve(stream: TcpStream, peer: SocketAddr, fd: i64, ctx: Rc<WorkerCtx>) {
    let io = TokioIo::new(stream);
    let svc_ctx = ctx.clone();
    let svc = service_fn(move |req| handle(req, svc_ctx.clone(), fd, peer));
    // Title-Case header names, as Swoole and nginx send them. It costs ~9% of
    // a hello-world request's user CPU (bench/RESULTS.md); drop-in wins.
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(ctx.cfg.http_header_timeout)
        .title_case_headers(true)
        .max_buf_size(MAX_HEAD.max(8192))
        .max_header_size(MAX_HEAD)
        .keep_alive(true);
    let conn = builder.serve_connection(io, svc);
    tokio::pin!(conn);
    let mut shutdown = ctx.shutdown.subscribe();
    if !*shutdown.borrow_and_update() {
        tokio::select! {
            res = conn.as_mut() => {
                finish(&ctx, res);
                return;
            }
            _ = shutdown.changed() => {}
        }
    }
    conn.as_mut().graceful_shutdown();
    let res = conn.await;
    finish(&ctx, res);
}

fn finish(ctx: &WorkerCtx, res: Result<(), hyper::Error>) {
    if let Err(e) = res {
        // A client that vanished or sent garbage is routine; keep it quiet.
        crate::rlog!(Debug, "connection ended: {e}");
    }
    ctx.conn_closed();
}

fn wants_keep_alive<B>(req: &Request<B>) -> bool {
    let conn = req
        .headers()
        .get(header::CONNECTION)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.to_ascii_lowercase());
    match req.version() {
        Version::HTTP_10 => conn.is_some_and(|c| c.contains("keep-alive")),
        _ => !conn.is_some_and(|c| c.contains("close")),
    }
}

async fn handle(
    req: Request<Incoming>,
    ctx: Rc<WorkerCtx>,
    fd: i64,
    peer: SocketAddr,
) -> Result<Response<RespBody>, Infallible> {
    if ctx.poisoned.get().is_some() {
        return Ok(simple(503, "", true));
    }
    let keep_alive = wants_keep_alive(&req);
    let cfg = &ctx.cfg;

    if cfg.enable_static_handler {
        if let Some(root) = &cfg.document_root {
            if let Some(file) = static_files::resolve(root, req.uri().path()) {
                if let Some(resp) =
                    static_files::serve(&file, req.method(), req.headers(), keep_alive)
                {
                    return Ok(resp);
                }
            }
        }
    }

    let max = cfg.package_max_length;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        // Answer before reading a byte of it; hyper closes the connection
        // because the body was left unread.
        return Ok(simple(413, "", true));
    }

    let (parts, body) = req.into_parts();
    let body = match read_body(body, max).await {
        Ok(b) => b,
        Err(BodyError::TooLarge) => return Ok(simple(413, "", true)),
        Err(BodyError::Io) => return Ok(simple(400, "", true)),
    };

    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let is_head = parts.method == http::Method::HEAD;
    let coding = parts
        .headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| Coding::from_accept(v.as_bytes()));
    let request = HttpRequest {
        fd,
        protocol: if parts.version == Version::HTTP_10 {
            "HTTP/1.0"
        } else {
            "HTTP/1.1"
        },
        method: parts.method,
        uri: parts.uri,
        headers: parts.headers,
        body,
        peer,
        server_port: ctx.server_port,
        time: now,
        master_time: now as i64,
    };
    let (responder, head_rx) = Responder::new(RespContext {
        is_head,
        keep_alive,
        coding,
        compression: cfg
            .http_compression
            .then_some((cfg.http_compression_level, cfg.http_compression_min_length)),
    });
    ctx.requests.set(ctx.requests.get() + 1);
    let outcome = ctx.hooks.on_request(request, responder);
    if let Outcome::Fatal(code) = outcome {
        ctx.poison(code);
    }
    match head_rx.await {
        Ok(resp) => Ok(resp),
        // The responder was dropped unanswered: the callback failed or forgot end().
        Err(_) => Ok(simple(500, "", ctx.poisoned.get().is_some() || !keep_alive)),
    }
}

enum BodyError {
    TooLarge,
    Io,
}

async fn read_body(mut body: Incoming, max: usize) -> Result<Bytes, BodyError> {
    let mut buf = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| BodyError::Io)?;
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > max {
                return Err(BodyError::TooLarge);
            }
            buf.extend_from_slice(&data);
        }
    }
    Ok(buf.freeze())
}
