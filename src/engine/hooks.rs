//! The one interface through which the engine reaches user code.
//!
//! The engine calls these from the process and thread where they must run;
//! the PHP layer implements them by calling the callbacks given to
//! `$server->on()`. Tests implement them in plain Rust. Only ids and owned
//! bytes cross this line. Events only: what the engine needs to know before
//! an event (the WebSocket options, say) is configuration (`config`).

use std::net::SocketAddr;

use bytes::Bytes;

use crate::engine::http::{HttpRequest, Responder};

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
    /// Request `fd` passed `request_timeout` and was answered 504: stop
    /// what it waits for (its coroutine), if anything.
    fn on_request_timeout(&self, _fd: i64) {}
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
    /// In a worker: connection `fd` was accepted on port `port`.
    fn on_connect(&self, _fd: i64, _reactor_id: i32, _port: usize) -> Outcome {
        Outcome::Done
    }
    /// In a worker: one message (framed as the port says) from `fd`.
    fn on_receive(&self, _fd: i64, _reactor_id: i32, _port: usize, _data: Bytes) -> Outcome {
        Outcome::Done
    }
    /// SWOOLE_PROCESS with a `dispatch_func`: the worker for one message
    /// of connection `fd` (`kind`: Swoole's event type), or one of Swoole's
    /// `SWOOLE_DISPATCH_RESULT_*` (negative); `None`: no function (or it
    /// failed), use `dispatch_mode`.
    fn dispatch(&self, _fd: i64, _kind: i32, _data: &Bytes) -> Option<i64> {
        None
    }
    /// In a worker: `fd` is closed (by the peer, `close()` or the heartbeat).
    fn on_close(&self, _fd: i64, _reactor_id: i32, _port: usize) -> Outcome {
        Outcome::Done
    }
    /// In a worker: a datagram from `peer` on UDP port `port`.
    fn on_packet(
        &self,
        _port: usize,
        _data: Bytes,
        _peer: SocketAddr,
        _server_socket: i32,
        _server_port: u16,
    ) -> Outcome {
        Outcome::Done
    }
    /// In a worker: a datagram from the unix socket `path` ("" when the
    /// sender is unbound) on unix datagram port `port`.
    fn on_unix_packet(
        &self,
        _port: usize,
        _data: Bytes,
        _path: &str,
        _server_socket: i32,
    ) -> Outcome {
        Outcome::Done
    }
    /// In a task worker: task `task_id` sent by worker `src_worker`.
    fn on_task(&self, _task_id: i64, _src_worker: i32, _data: Bytes, _flags: u32) -> Outcome {
        Outcome::Done
    }
    /// In the worker that sent task `task_id`: its result from `task_worker`.
    fn on_finish(&self, _task_id: i64, _task_worker: i32, _data: Bytes, _flags: u32) -> Outcome {
        Outcome::Done
    }
    /// `sendMessage()` from worker `src_worker`.
    fn on_pipe_message(&self, _src_worker: i32, _data: Bytes, _flags: u32) -> Outcome {
        Outcome::Done
    }
    /// In the worker that owns connection `fd`: a response made in another
    /// process (`Response::create($fd)` in a task worker) for the request
    /// this worker detached; `data` is the PHP layer's encoding.
    fn on_remote_response(&self, _fd: i64, _data: Bytes) -> Outcome {
        Outcome::Done
    }
    /// In a worker: the upgrade request of connection `req.fd`, answered
    /// through `resp` (a 101 makes it a WebSocket connection); called when
    /// the config's `ws.custom_handshake` says a `handshake` callback is set.
    fn on_ws_handshake(&self, _req: HttpRequest, resp: Responder) -> Outcome {
        resp.fail(400);
        Outcome::Done
    }
    /// In a worker: our 101 for `req.fd`, in `resp`, before it is sent; the
    /// engine ends it when this returns (only with the config's
    /// `ws.before_handshake_response`).
    fn on_ws_before_handshake_response(&self, _req: HttpRequest, _resp: Responder) -> Outcome {
        Outcome::Done
    }
    /// In a worker: a connection of a WebSocket server closed without being
    /// an established WebSocket connection (Swoole's `onDisconnect`).
    fn on_disconnect(&self, _fd: i64, _reactor_id: i32) -> Outcome {
        Outcome::Done
    }
    /// In a worker: WebSocket connection `req.fd` completed its handshake.
    fn on_ws_open(&self, _req: HttpRequest) -> Outcome {
        Outcome::Done
    }
    /// In a worker: one whole WebSocket message from `fd`.
    fn on_ws_message(&self, _fd: i64, _data: Bytes, _opcode: u8, _flags: u8) -> Outcome {
        Outcome::Done
    }
    /// In a worker: connection `fd`'s output buffer reached its high
    /// watermark (`full`) or fell back to its low one (`onBufferFull`,
    /// `onBufferEmpty`; `engine::net::outflow`).
    fn on_buffer(&self, _fd: i64, _full: bool) -> Outcome {
        Outcome::Done
    }
}
